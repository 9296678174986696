"""Settings every test session shares."""
import os

# The MPI jobs the distributed tests start (mpiexec -n 2): an mpi4py built on Open MPI (the GPU machines' is) refuses to
# run as root without these; MPICH (the `distributed` extra's wheels) ignores them.
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
