# The XLA dynamic-slice-fusion / NCCL window registration failure: a Mosaic-GPU collective kernel consuming a slice of a GEMM output; with dynamic-slice
# fusion on (the default) its buffers miss collective-memory coloring and NCCL symmetric window
# registration fails ("Cuda failure 1 'invalid argument'"); with
# XLA_FLAGS=--xla_gpu_enable_dynamic_slice_fusion=false every process prints ok.
# python dsf_ring_shift.py <coordinator_host:port> <num_processes> <process_id>  # 1 process/GPU
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import need  # noqa: E402

jax = need.import_jax()
need.need_module("jax.experimental.pallas.mosaic_gpu", "Pallas Mosaic GPU")

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import mosaic_gpu as plgpu  # noqa: E402
from jax.sharding import Mesh  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

try:
    from jax.sharding import AxisType
except ImportError:
    need.skip("needs jax.sharding.AxisType (explicit sharding axes; jax too old)")
if not hasattr(plgpu, "remote_ref"):
    need.skip("needs plgpu.remote_ref (Mosaic GPU peer stores; jax too old)")

coord, n_proc, pid = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
jax.distributed.initialize(coord, num_processes=n_proc, process_id=pid)
n = need.need_gpus(jax, 2)
need.need_compute_capability(jax, 9, "Mosaic GPU")
mesh = Mesh(np.array(jax.devices()), ("x",), axis_types=(AxisType.Explicit,))


def ring_shift(x):
    """Every device writes its block into the right neighbor's output."""

    def body(x_ref, out_ref):
        sem = pl.get_global(plgpu.SemaphoreType.REGULAR)
        dev = lax.axis_index("x")
        right = lax.rem(dev + 1, lax.axis_size("x"))
        dst = plgpu.remote_ref(out_ref, {"x": right})

        def scoped(smem, barrier):
            plgpu.copy_gmem_to_smem(x_ref, smem, barrier)
            plgpu.barrier_wait(barrier)
            plgpu.copy_smem_to_gmem(smem, dst)
            plgpu.wait_smem_to_gmem(0, wait_read_only=False)

        pl.run_scoped(scoped, plgpu.SMEM(x_ref.shape, x_ref.dtype), plgpu.Barrier(num_arrivals=1),
                      collective_axes="wg")
        pl.semaphore_signal(sem, device_id={"x": right})
        pl.semaphore_wait(sem, value=1)

    return plgpu.kernel(body, grid=(1,), grid_names=("sm",), num_threads=1, thread_name="wg",
                        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype))(x)


def f():
    dev = lax.axis_index("x").astype(jnp.float32)
    a = jnp.full((19, 256), dev, jnp.float32)
    y1 = ring_shift(a)
    # The second kernel consumes a static slice of a GEMM output: the fusion the report is about.
    w = jnp.full((256, 256), 0.01, jnp.float32)
    b = (y1 @ w)[:15]
    y2 = ring_shift(b)
    return y1, y2


run = jax.jit(jax.shard_map(f, mesh=mesh, in_specs=(), out_specs=(P("x"), P("x"))))
y1, y2 = jax.block_until_ready(run())
left = float((jax.process_index() - 1) % n)  # 1 process per GPU: device rank == process index
left2 = float((jax.process_index() - 2) % n)
np.testing.assert_array_equal(np.asarray(y1.addressable_shards[0].data)[0, :4],
                              np.full(4, left, np.float32))
np.testing.assert_allclose(np.asarray(y2.addressable_shards[0].data)[0, :4],
                           np.full(4, left2 * 2.56, np.float32), rtol=1e-3)
print(f"process {jax.process_index()}: ok ({n} devices)", flush=True)
