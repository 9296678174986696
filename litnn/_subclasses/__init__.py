"""litnn._subclasses: `fake_tensor.is_fake` (reference/subclasses/fake_tensor). Hand-written."""
from . import fake_tensor
