// Tutorial 5 of the Poplar user guide: logistic regression on MNIST,
// trained by gradient descent. A softmax classifier (weights w, bias)
// maps each 28x28 image to ten class probabilities; every batch of 50
// images moves the parameters one step against the gradient of the mean
// cross-entropy loss. The host connects the data sets to the streams and
// writes the batch counts; see README.md.
target mk2

// Parameters, trained in place; they start at zero.
var w: float[784, 10]
var bias: float[10]
map w -> linear
map bias -> tile 0
host_read "w" <- w
host_read "bias" <- bias

// Run settings, written by the host (`--write batches=[160]` ...).
var learning_rate: float @ tile 0 = 0.1
var epochs: int @ tile 0 = 10
var batches: int @ tile 0 = 160
var test_batches: int @ tile 0 = 40
host_write "learning_rate" -> learning_rate
host_write "epochs" -> epochs
host_write "batches" -> batches
host_write "test_batches" -> test_batches

// One batch: 50 images of 784 grey levels and their labels, streamed from
// the host's buffers in turn (each buffer is used circularly).
stream "train_images": uchar[50, 784] from host
stream "train_labels": uchar[50] from host
stream "test_images": uchar[50, 784] from host
stream "test_labels": uchar[50] from host
var images: uchar[50, 784]
var labels: uchar[50]
map images -> linear
map labels -> tile 0
const digits: uchar[10] @ tile 0 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
const classes: float[10] @ tile 0 = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]

// Totals over an epoch.
var loss_sum: float @ tile 0
var correct: float @ tile 0
var epoch: int @ tile 0
var step: int @ tile 0

// The forward pass on the batch in `images` and `labels`: the logits z,
// the softmax probabilities p, and the batch's loss and hits added to the
// totals.
function forward {
  x = cast<float>(images) / 255.0
  // y[i, j] = 1 where labels[i] == j: the one-hot targets.
  y = cast<float>(transpose(broadcast(labels, 10)) == broadcast(digits, 50))
  xw = matmul(x, w)
  z = xw + broadcast(bias, 50)
  // Softmax, shifted by each row's maximum so exp cannot overflow.
  zmax = reduce(z, max, dims = [1])
  shifted = z - transpose(broadcast(zmax, 10))
  e = exp(shifted)
  sum_e = reduce(e, add, dims = [1])
  p = e / transpose(broadcast(sum_e, 10))
  // Cross-entropy: -log p[i, label] = log(sum_e[i]) - shifted[i, label].
  log_sum = log(sum_e)
  nll = y * (transpose(broadcast(log_sum, 10)) - shifted)
  batch_loss = reduce(nll, add)
  loss_sum += batch_loss
  // The prediction is the class of the largest logit, the lowest such
  // class on a tie (as numpy's argmax): the smallest of j where row i
  // reaches its maximum and j + 10 where it does not.
  candidate = broadcast(classes, 50) + cast<float>(shifted != 0.0) * 10.0
  predicted = reduce(candidate, min, dims = [1])
  hit = cast<float>(predicted == cast<float>(labels))
  batch_hits = reduce(hit, add)
  correct += batch_hits
}

// One gradient descent step on the batch: for the mean loss over the
// batch, dL/dz = (p - y) / 50, dL/dw = x^T dL/dz, dL/dbias = sum of dL/dz.
function train_step {
  copy "train_images" -> images
  copy "train_labels" -> labels
  call forward
  dz = (p - y) / 50.0
  dw = matmul(transpose(x), dz)
  dbias = reduce(dz, add, dims = [0])
  w -= dw * learning_rate
  bias -= dbias * learning_rate
}

function test_step {
  copy "test_images" -> images
  copy "test_labels" -> labels
  call forward
}

program main {
  fill epoch 0
  while { more_epochs = epoch < epochs } more_epochs {
    epoch += 1
    print "epoch" epoch
    fill loss_sum 0.0
    fill correct 0.0
    fill step 0
    while { more_batches = step < batches } more_batches {
      call train_step
      step += 1
    }
    seen = cast<float>(batches) * 50.0
    train_loss = loss_sum / seen
    train_accuracy = correct / seen
    print "train loss" train_loss
    print "train accuracy" train_accuracy
    fill loss_sum 0.0
    fill correct 0.0
    fill step 0
    while { more_tests = step < test_batches } more_tests {
      call test_step
      step += 1
    }
    tested = cast<float>(test_batches) * 50.0
    test_loss = loss_sum / tested
    test_accuracy = correct / tested
    print "test loss" test_loss
    print "test accuracy" test_accuracy
  }
}
