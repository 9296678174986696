"""litnn.fx.experimental: `proxy_tensor.get_proxy_mode` (reference/fx/proxy_tensor). Hand-written."""
from . import proxy_tensor
