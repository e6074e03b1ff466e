"""Tutorial 5 (a basic machine learning example) in Python, notebook style.

The model of examples/05_machine_learning/regression.pir: a softmax
(multinomial logistic) regression, logits ``z = x w + bias`` for images
``x`` of 784 grey levels / 255, trained by plain gradient descent on the
mean cross-entropy of batches of 50, the parameters starting at zero; the
epoch and batch loops are ``while`` loops on device counters, the batches
come from four host streams that read numpy arrays circularly, and the run
settings are host-written scalars. Each cell (``# %%``) runs as it is in
Jupyter or VS Code; run as a script, it trains on a synthetic data set it
makes with numpy (ten classes of noisy pixel patterns, like the folder's
test's but noisier: nothing is downloaded), for 5 epochs of 40 training
batches and 10 test batches (the PIR program's defaults, 10, 160 and 40,
are for MNIST), written to the device's settings before the run, on the
IPU Model (``--cpu``: on the host's cores, the same figures, no cycles).

What it prints: per epoch what regression.pir prints (``epoch: N``,
``train loss``, ``train accuracy``, ``test loss``, ``test accuracy``,
each number as ``%g``), the same figures from a numpy reimplementation
of the same steps with the difference between the two, the trained
parameters' test accuracy computed on the host, the compute sets that
took most cycles, the profile summary (``engine.summary()``), and the
path where it saved the report page.

Where the Python version differs from the PIR program, and why:

- PIR's ``print`` writes numbers as ``%g``; ``PrintTensor`` writes them in
  Poplar's layout (``0.80250698``), so each epoch's figures go to the host
  through a device-to-host stream (``epoch_stats``) connected to a Python
  function, which prints them as PIR does.
- ``==`` and ``!=`` on tensors are not elementwise operations in the
  Python API (``a == b`` is Python's identity test and returns ``False``),
  so ``a == b`` is written ``(a <= b) * (a >= b)`` (both cast to float),
  and ``shifted != 0`` is ``shifted < 0`` (``shifted = z - max(z) <= 0``).
- PIR's ``x += y`` updates ``x`` in place; a Python ``+=`` on a Tensor
  rebinds the name to a new tensor, so each update is ``Copy(x + y, x)``.
- PIR's ``function``/``call`` shares one copy of the forward pass; the
  Python API has no function binding, so the forward pass is one
  ``Sequence`` added to both the training and the test step (the same
  compute sets and tensors, its steps listed twice).
"""

# %% [markdown]
# # Logistic regression on the IPU Model, numpy in and out

# %%
import os
import sys
import tempfile
from typing import List

import numpy as np

import poplar

PIXELS, CLASSES, BATCH = 784, 10, 50
EPOCHS, LEARNING_RATE = 5, 0.1
TRAIN, TEST = 2000, 500  # images: 40 training batches and 10 test batches


# %% [markdown]
# ## A synthetic data set: ten classes of noisy pixel patterns
#
# Each class is a random pattern of bright pixels (a quarter of them);
# an image of the class flips each pixel with probability 0.37 (noisy
# enough that the first epoch does not learn it all) and draws its grey
# level from 150..255 (bright) or 0..89 (dark). The arrays are
# MNIST-shaped: ``uint8`` images ``[n, 784]`` and labels ``[n]``.

# %%
def synthetic(n: int, patterns: np.ndarray, rng: np.random.Generator) -> "tuple[np.ndarray, np.ndarray]":
    labels = rng.integers(0, CLASSES, size=n).astype(np.uint8)
    flip = rng.integers(0, 100, size=(n, PIXELS)) < 37
    bright = patterns[labels] != flip
    levels = np.where(bright, rng.integers(150, 256, size=(n, PIXELS)), rng.integers(0, 90, size=(n, PIXELS)))
    return levels.astype(np.uint8), labels


rng = np.random.default_rng(0x74757435)
patterns = rng.integers(0, 4, size=(CLASSES, PIXELS)) == 0
train_images, train_labels = synthetic(TRAIN, patterns, rng)
test_images, test_labels = synthetic(TEST, patterns, rng)


# %% [markdown]
# ## The graph
#
# Parameters, run settings (with defaults the host can overwrite), the
# batch buffers and their streams, and the epoch's totals.

# %%
device = poplar.Device.cpu() if "--cpu" in sys.argv else poplar.Device.ipu_model()
graph = poplar.Graph(device.target)
f32 = np.float32


def scalar(dtype: "type[np.generic]", name: str, initial: "float | None" = None) -> poplar.Tensor:
    t = graph.add_variable(dtype, [], name)
    graph.set_tile_mapping(t, 0)
    if initial is not None:
        graph.set_initial_value(t, initial)
    return t


w = graph.add_variable(f32, [PIXELS, CLASSES], "w")
bias = graph.add_variable(f32, [CLASSES], "bias")
graph.map_linearly(w, min_elements_per_tile=1, grain_size=1)  # PIR's `linear`
graph.set_tile_mapping(bias, 0)
graph.create_host_read("w", w)
graph.create_host_read("bias", bias)

learning_rate = scalar(f32, "learning_rate", 0.1)
epochs = scalar(np.int32, "epochs", 10)
batches = scalar(np.int32, "batches", 160)
test_batches = scalar(np.int32, "test_batches", 40)
graph.create_host_write("learning_rate", learning_rate)
graph.create_host_write("epochs", epochs)
graph.create_host_write("batches", batches)
graph.create_host_write("test_batches", test_batches)

train_images_in = graph.add_host_to_device_fifo("train_images", np.uint8, BATCH * PIXELS)
train_labels_in = graph.add_host_to_device_fifo("train_labels", np.uint8, BATCH)
test_images_in = graph.add_host_to_device_fifo("test_images", np.uint8, BATCH * PIXELS)
test_labels_in = graph.add_host_to_device_fifo("test_labels", np.uint8, BATCH)
images = graph.add_variable(np.uint8, [BATCH, PIXELS], "images")
labels = graph.add_variable(np.uint8, [BATCH], "labels")
graph.map_linearly(images, min_elements_per_tile=1, grain_size=1)
graph.set_tile_mapping(labels, 0)
digits = graph.add_constant(np.uint8, [CLASSES], list(range(CLASSES)), "digits")
classes = graph.add_constant(f32, [CLASSES], [float(c) for c in range(CLASSES)], "classes")
graph.set_tile_mapping(digits, 0)
graph.set_tile_mapping(classes, 0)

loss_sum = scalar(f32, "loss_sum")
correct = scalar(f32, "correct")
epoch = scalar(np.int32, "epoch")
step = scalar(np.int32, "step")

# What each epoch sends the host: epoch, train loss and accuracy, test loss and accuracy.
stats = graph.add_variable(f32, [5], "stats")
graph.set_tile_mapping(stats, 0)
stats_out = graph.add_device_to_host_fifo("epoch_stats", f32, 5)


def rows(t: poplar.Tensor, n: int) -> poplar.Tensor:
    """A [rows] tensor as [rows, n], each row's value repeated (no copy)."""
    return t.reshape([t.shape[0], 1]).broadcast(n, 1)


def cols(t: poplar.Tensor, n: int) -> poplar.Tensor:
    """A [cols] tensor as [n, cols], the vector in every row (no copy)."""
    return t.reshape([1, t.shape[0]]).broadcast(n, 0)


def equal(a: poplar.Tensor, b: poplar.Tensor) -> poplar.Tensor:
    """1.0 where a == b, else 0.0 (inside `with`: Tensor has no elementwise ==)."""
    return (a <= b).cast(f32) * (a >= b).cast(f32)


# %% [markdown]
# ## The forward pass
#
# The logits, the softmax probabilities (shifted by each row's maximum),
# and the batch's loss and hits added to the epoch's totals. The
# prediction is the class of the largest logit, the lowest on a tie.

# %%
forward = poplar.Sequence()
with forward:
    x = images.cast(f32) / 255.0
    y = equal(rows(labels, CLASSES), cols(digits, BATCH))  # one-hot targets
    z = x @ w + cols(bias, BATCH)
zmax = graph.reduce(z, [1], forward, op="max", name="zmax")
with forward:
    shifted = z - rows(zmax, CLASSES)
    e = shifted.exp()
sum_e = graph.reduce(e, [1], forward, name="sum_e")
with forward:
    p = e / rows(sum_e, CLASSES)
    nll = y * (rows(sum_e.log(), CLASSES) - shifted)  # -log p[i, label]
batch_loss = graph.reduce(nll, [0, 1], forward, name="batch_loss")
with forward:
    new_loss_sum = loss_sum + batch_loss
    candidate = cols(classes, BATCH) + (shifted < 0.0).cast(f32) * 10.0
forward.add(poplar.Copy(new_loss_sum, loss_sum))
predicted = graph.reduce(candidate, [1], forward, op="min", name="predicted")
with forward:
    hit = equal(predicted, labels.cast(f32))
batch_hits = graph.reduce(hit, [0], forward, name="batch_hits")
with forward:
    new_correct = correct + batch_hits
forward.add(poplar.Copy(new_correct, correct))


# %% [markdown]
# ## One gradient descent step, one test batch
#
# For the mean loss over the batch: dL/dz = (p - y) / 50, dL/dw = x^T dL/dz,
# dL/dbias = the sum of dL/dz over the batch.

# %%
train_step = poplar.Sequence(
    poplar.Copy(train_images_in, images), poplar.Copy(train_labels_in, labels), forward
)
with train_step:
    dz = (p - y) / 50.0
    dw = x.T @ dz
dbias = graph.reduce(dz, [0], train_step, name="dbias")
with train_step:
    new_w = w - dw * learning_rate
    new_bias = bias - dbias * learning_rate
train_step.add(poplar.Copy(new_w, w))
train_step.add(poplar.Copy(new_bias, bias))

test_step = poplar.Sequence(poplar.Copy(test_images_in, images), poplar.Copy(test_labels_in, labels), forward)


def count_loop(limit: poplar.Tensor, body: poplar.Program) -> poplar.Program:
    """``fill step 0; while step < limit { body; step += 1 }``."""
    loop = poplar.Sequence()
    graph.fill(loop, step, 0)
    cond = poplar.Sequence()
    with cond:
        more = step < limit
    with body:
        next_step = step + 1
    body.add(poplar.Copy(next_step, step))
    loop.add(poplar.RepeatWhileTrue(cond, more, body))
    return loop


def zero_totals(prog: poplar.Program) -> None:
    graph.fill(prog, loss_sum, 0.0)
    graph.fill(prog, correct, 0.0)


# %% [markdown]
# ## The program: epochs of training, then a test, figures to the host

# %%
epoch_body = poplar.Sequence()
with epoch_body:
    next_epoch = epoch + 1
epoch_body.add(poplar.Copy(next_epoch, epoch))
zero_totals(epoch_body)
epoch_body.add(count_loop(batches, train_step))
with epoch_body:
    seen = batches.cast(f32) * 50.0
    train_loss = loss_sum / seen
    train_accuracy = correct / seen
    epoch_number = epoch.cast(f32)
zero_totals(epoch_body)
epoch_body.add(count_loop(test_batches, test_step))
with epoch_body:
    tested = test_batches.cast(f32) * 50.0
    test_loss = loss_sum / tested
    test_accuracy = correct / tested
for i, figure in enumerate((epoch_number, train_loss, train_accuracy, test_loss, test_accuracy)):
    epoch_body.add(poplar.Copy(figure, stats[i]))
epoch_body.add(poplar.Copy(stats, stats_out))

main = poplar.Sequence()
graph.fill(main, epoch, 0)
epoch_cond = poplar.Sequence()
with epoch_cond:
    more_epochs = epoch < epochs
main.add(poplar.RepeatWhileTrue(epoch_cond, more_epochs, epoch_body))


# %% [markdown]
# ## Compile, connect numpy arrays, set the run, train

# %%
engine = poplar.Engine(graph, [main], device=device)
engine.connect_stream("train_images", train_images)
engine.connect_stream("train_labels", train_labels)
engine.connect_stream("test_images", test_images)
engine.connect_stream("test_labels", test_labels)

history: List[np.ndarray] = []


def on_epoch(figures: np.ndarray) -> None:
    """Called with each epoch's stats as they leave the device."""
    history.append(figures.copy())
    print(f"epoch: {int(figures[0])}")
    for name, value in zip(("train loss", "train accuracy", "test loss", "test accuracy"), figures[1:]):
        print(f"{name}: {float(value):g}")


engine.connect_stream("epoch_stats", on_epoch)
engine.write("epochs", np.array(EPOCHS, dtype=np.int32))
engine.write("batches", np.array(TRAIN // BATCH, dtype=np.int32))
engine.write("test_batches", np.array(TEST // BATCH, dtype=np.int32))
engine.write("learning_rate", np.array(LEARNING_RATE, dtype=np.float32))
engine.run(0)
trained_w = engine.read("w")
trained_bias = engine.read("bias")


# %% [markdown]
# ## The same steps in numpy
#
# The device adds in another order (per tile, then the tiles' partials),
# so the figures agree to float tolerance, not bit for bit.

# %%
def reference() -> "tuple[np.ndarray, np.ndarray, np.ndarray]":
    rw = np.zeros((PIXELS, CLASSES), dtype=f32)
    rb = np.zeros(CLASSES, dtype=f32)
    lr = f32(LEARNING_RATE)

    def forward_np(
        imgs: np.ndarray, labs: np.ndarray
    ) -> "tuple[np.ndarray, np.ndarray, np.ndarray, float, float]":
        xs = imgs.astype(f32) / f32(255.0)
        ys = np.eye(CLASSES, dtype=f32)[labs]
        zs = xs @ rw + rb
        sh = zs - zs.max(axis=1, keepdims=True)
        es = np.exp(sh)
        se = es.sum(axis=1, keepdims=True)
        loss = float((ys * (np.log(se) - sh)).sum())
        hits = float((zs.argmax(axis=1) == labs).sum())
        return xs, ys, es / se, loss, hits

    out = []
    for ep in range(EPOCHS):
        loss_total = hits_total = 0.0
        for b in range(TRAIN // BATCH):
            s = slice(b * BATCH, (b + 1) * BATCH)
            xs, ys, ps, loss, hits = forward_np(train_images[s], train_labels[s])
            loss_total, hits_total = loss_total + loss, hits_total + hits
            dzs = (ps - ys) / f32(50.0)
            rw = rw - (xs.T @ dzs) * lr
            rb = rb - dzs.sum(axis=0) * lr
        row = [ep + 1.0, loss_total / TRAIN, hits_total / TRAIN]
        loss_total = hits_total = 0.0
        for b in range(TEST // BATCH):
            s = slice(b * BATCH, (b + 1) * BATCH)
            _, _, _, loss, hits = forward_np(test_images[s], test_labels[s])
            loss_total, hits_total = loss_total + loss, hits_total + hits
        out.append(row + [loss_total / TEST, hits_total / TEST])
    return np.array(out), rw, rb


want, ref_w, ref_bias = reference()
got = np.array(history)
print("numpy reference, per epoch (train loss, train accuracy, test loss, test accuracy):")
for row in want:
    print("  " + ", ".join(f"{v:g}" for v in row[1:]))
loss_diff = float(np.max(np.abs(got[:, [1, 3]] - want[:, [1, 3]]) / want[:, [1, 3]]))
param_diff = float(max(np.abs(trained_w - ref_w).max(), np.abs(trained_bias - ref_bias).max()))
print(f"device against numpy: losses within {loss_diff:.1e} relative, parameters within {param_diff:.1e}")
assert loss_diff < 1e-4 and param_diff < 1e-4 * float(np.abs(ref_w).max()), "the device and numpy disagree"
assert all(b[1] < a[1] for a, b in zip(history, history[1:])), "the training loss did not fall every epoch"

host_logits = test_images.astype(f32) / 255.0 @ trained_w + trained_bias
host_accuracy = float((host_logits.argmax(axis=1) == test_labels).mean())
print(f"trained parameters from the device, test accuracy on the host: {host_accuracy:g}")


# %% [markdown]
# ## Where the cycles went: profiles as Python objects, the summary, the report

# %%
if device.kind == "sim":
    _, execution = poplar.profiles(engine)
    assert execution is not None
    top = sorted(execution.compute_sets.items(), key=lambda kv: -kv[1])[:5]
    print("compute sets with most cycles:")
    for name, cycles in top:
        print(f"  {name:<30} {cycles:>12,}")
    print(engine.summary(), end="")
    report = poplar.Report(engine.report_html("tutorial 5: logistic regression"))  # shows inline in Jupyter
    path = os.path.join(tempfile.mkdtemp(prefix="poplar-tut5-"), "report.html")
    report.save(path)
    print(f"report saved to {path}")
