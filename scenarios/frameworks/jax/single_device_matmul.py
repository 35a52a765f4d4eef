# A JAX program of our own for one device (GPU when there is one, else CPU): a matmul and a
# ring roll checked element by element against numpy.
# python single_device_matmul.py <coordinator> <num_processes> <process_id> <n> <platform>
# platform: "gpu" requires a GPU (skip without one), "any" takes what jax has.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import need  # noqa: E402

jax = need.import_jax()
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

coord, n_proc, pid, n, platform = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]),
                                   int(sys.argv[4]), sys.argv[5])
if platform == "gpu":
    need.need_gpus(jax, 1)
dev = jax.devices()[0]
a = np.arange(n * n, dtype=np.float32).reshape(n, n) % 7 - 3   # small integers: exact in f32
b = (np.arange(n * n, dtype=np.float32).reshape(n, n).T % 5) - 2
with jax.default_matmul_precision("highest"):
    got = jax.jit(lambda x, y: jnp.roll(x @ y, 1, axis=0))(jax.device_put(a, dev),
                                                          jax.device_put(b, dev))
got = np.asarray(got)
want = np.roll(a.astype(np.float64) @ b.astype(np.float64), 1, axis=0).astype(np.float32)
wrong = np.argwhere(got != want)
if wrong.size:
    i, j = wrong[0]
    print(f"process {pid}: wrong data: {len(wrong)}/{got.size} elements, first [{i},{j}] "
          f"= {got[i, j]} expected {want[i, j]}", flush=True)
    sys.exit(1)
print(f"process {pid}: ok ({dev.platform} {dev.device_kind}, n={n}, jax {jax.__version__})",
      flush=True)
