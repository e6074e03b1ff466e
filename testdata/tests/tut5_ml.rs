//! Tutorial 5, `examples/05_machine_learning/regression.pir`: a softmax
//! (multinomial logistic) regression trained by gradient descent. Its
//! output depends on a data set that is fetched, not committed, so it is
//! not a golden run case; this test runs it instead.
//!
//! - On a small synthetic data set the test makes (ten classes, each a
//!   random pattern of bright pixels, with noise), always: the program must
//!   train, with the training loss falling every epoch and the test
//!   accuracy reaching 90%.
//! - On the MNIST digits written by `get_mnist.sh`, when they are present
//!   (otherwise it prints "skipped: MNIST data absent"): two epochs of the
//!   README's run, with at least 85% test accuracy.
//!
//! In both, `sim` and `cpu` must agree bit for bit (the printed figures and
//! the trained parameters' bytes), and the figures must match a plain
//! Rust reimplementation of the same steps in `f32` ([`reference`]). The
//! two do not add in the same order everywhere (the program's `reduce`
//! adds per tile, then the tiles' partials), so they are compared to float
//! tolerance: each loss within 1e-4 relative, every parameter within 1e-4
//! of the largest one's magnitude, and each accuracy within one sample,
//! since a prediction whose two best logits differ only by rounding may go
//! either way. Measured: the parameters come out equal bit for bit on
//! both data sets, and the losses within 3e-6 relative, which is the
//! printed six digits' rounding.

use std::path::{Path, PathBuf};

use runtime::linker::gp::ElemType;
use runtime::linker::image::Image;

const PIXELS: usize = 784;
const CLASSES: usize = 10;
/// The batch size written in `regression.pir`'s shapes.
const BATCH: usize = 50;

fn example() -> PathBuf {
    testdata::root().join("../examples/05_machine_learning")
}

/// A data set as the program's streams take it: grey levels 0..=255, one
/// row of `PIXELS` per image, and one label per image.
struct Data {
    train_images: Vec<u8>,
    train_labels: Vec<u8>,
    test_images: Vec<u8>,
    test_labels: Vec<u8>,
}

/// How the host drives the program (its `host_write` settings).
#[derive(Clone, Copy)]
struct Settings {
    epochs: usize,
    batches: usize,
    test_batches: usize,
    learning_rate: f32,
}

/// What the program prints for one epoch.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Epoch {
    train_loss: f32,
    train_accuracy: f32,
    test_loss: f32,
    test_accuracy: f32,
}

/// The same sequence every run: xorshift64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Ten classes, each lighting a random quarter of the pixels; an image of a
/// class is bright (150..=255) on its class's pixels and dark (0..=89)
/// elsewhere, with one pixel in ten swapped between the two.
fn synthetic(train: usize, test: usize) -> Data {
    let mut rng = Rng(0x7475_7435);
    let patterns: Vec<Vec<bool>> =
        (0..CLASSES).map(|_| (0..PIXELS).map(|_| rng.below(4) == 0).collect()).collect();
    let mut make = |n: usize| {
        let (mut images, mut labels) = (Vec::new(), Vec::new());
        for _ in 0..n {
            let class = rng.below(CLASSES as u64) as usize;
            labels.push(class as u8);
            for &on in &patterns[class] {
                let bright = on != (rng.below(10) == 0);
                images.push(if bright { 150 + rng.below(106) } else { rng.below(90) } as u8);
            }
        }
        (images, labels)
    };
    let (train_images, train_labels) = make(train);
    let (test_images, test_labels) = make(test);
    Data { train_images, train_labels, test_images, test_labels }
}

/// The files `get_mnist.sh` writes, if they are there.
fn mnist() -> Option<Data> {
    let dir = example().join("data");
    let read = |name: &str| -> Option<Vec<u8>> {
        let bytes = std::fs::read(dir.join(name)).ok()?;
        let start = runtime::data::npy_data_start(&bytes).expect(name);
        Some(bytes[start..].to_vec())
    };
    Some(Data {
        train_images: read("train_images.npy")?,
        train_labels: read("train_labels.npy")?,
        test_images: read("test_images.npy")?,
        test_labels: read("test_labels.npy")?,
    })
}

/// The training program's steps in plain `f32`, in the program's order
/// wherever it has one: products summed over `k` from zero, rows of ten
/// summed left to right, the batch's loss and hits in row-major order.
fn reference(data: &Data, s: Settings) -> (Vec<Epoch>, Vec<f32>, Vec<f32>) {
    let mut w = vec![0f32; PIXELS * CLASSES];
    let mut bias = [0f32; CLASSES];
    // Streams are read circularly: the k-th copy takes block k modulo the buffer.
    let (mut train_copies, mut test_copies) = (0usize, 0usize);
    let mut epochs = Vec::new();
    for _ in 0..s.epochs {
        let (mut loss_sum, mut correct) = (0f32, 0f32);
        for _ in 0..s.batches {
            let (x, y, p, loss, hits) =
                forward(&w, &bias, &data.train_images, &data.train_labels, train_copies);
            train_copies += 1;
            loss_sum += loss;
            correct += hits;
            let dz: Vec<f32> = (0..BATCH * CLASSES).map(|i| (p[i] - y[i]) / BATCH as f32).collect();
            for k in 0..PIXELS {
                for j in 0..CLASSES {
                    let mut dw = 0f32;
                    for i in 0..BATCH {
                        dw += x[i * PIXELS + k] * dz[i * CLASSES + j];
                    }
                    w[k * CLASSES + j] -= dw * s.learning_rate;
                }
            }
            for j in 0..CLASSES {
                let db: f32 = (0..BATCH).map(|i| dz[i * CLASSES + j]).sum();
                bias[j] -= db * s.learning_rate;
            }
        }
        let seen = s.batches as f32 * BATCH as f32;
        let (train_loss, train_accuracy) = (loss_sum / seen, correct / seen);
        let (mut loss_sum, mut correct) = (0f32, 0f32);
        for _ in 0..s.test_batches {
            let (.., loss, hits) = forward(&w, &bias, &data.test_images, &data.test_labels, test_copies);
            test_copies += 1;
            loss_sum += loss;
            correct += hits;
        }
        let tested = s.test_batches as f32 * BATCH as f32;
        epochs.push(Epoch {
            train_loss,
            train_accuracy,
            test_loss: loss_sum / tested,
            test_accuracy: correct / tested,
        });
    }
    (epochs, w, bias.to_vec())
}

/// One batch's forward pass: the inputs `x`, one-hot targets `y`,
/// probabilities `p`, and the batch's summed loss and hit count.
#[allow(clippy::type_complexity)]
fn forward(
    w: &[f32],
    bias: &[f32],
    images: &[u8],
    labels: &[u8],
    copy: usize,
) -> (Vec<f32>, Vec<f32>, Vec<f32>, f32, f32) {
    let n = labels.len();
    let mut x = vec![0f32; BATCH * PIXELS];
    let mut y = vec![0f32; BATCH * CLASSES];
    let mut p = vec![0f32; BATCH * CLASSES];
    let (mut loss, mut hits) = (0f32, 0f32);
    for i in 0..BATCH {
        let sample = (copy * BATCH + i) % n;
        let label = labels[sample] as usize;
        y[i * CLASSES + label] = 1.0;
        for k in 0..PIXELS {
            x[i * PIXELS + k] = images[sample * PIXELS + k] as f32 / 255.0;
        }
        let mut z = [0f32; CLASSES];
        for (j, zj) in z.iter_mut().enumerate() {
            let mut acc = 0f32;
            for k in 0..PIXELS {
                acc += x[i * PIXELS + k] * w[k * CLASSES + j];
            }
            *zj = acc + bias[j];
        }
        let zmax = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let shifted = z.map(|v| v - zmax);
        let e = shifted.map(f32::exp);
        let sum_e: f32 = e.iter().sum();
        for j in 0..CLASSES {
            p[i * CLASSES + j] = e[j] / sum_e;
            loss += y[i * CLASSES + j] * (sum_e.ln() - shifted[j]);
        }
        let predicted = shifted.iter().position(|&v| v == 0.0).unwrap_or(0);
        hits += (predicted == label) as u8 as f32;
    }
    (x, y, p, loss, hits)
}

/// A run's standard output and the trained parameters' bytes.
struct Run {
    stdout: String,
    w: Vec<u8>,
    bias: Vec<u8>,
}

/// Runs the program on `device` through `poplar-run`'s own code path,
/// with the data sets written as `.npy` files in `dir`.
fn run(image: &Image, dir: &Path, s: Settings, device: &str) -> Result<Run, String> {
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let mut argv = vec![example().join("regression.pir").to_string_lossy().into_owned()];
    for stream in ["train_images", "train_labels", "test_images", "test_labels"] {
        argv.push("--stream".into());
        argv.push(format!("{stream}={}", file(&format!("{stream}.npy"))));
    }
    for (key, value) in [
        ("epochs", s.epochs.to_string()),
        ("batches", s.batches.to_string()),
        ("test_batches", s.test_batches.to_string()),
        ("learning_rate", format!("{:?}", s.learning_rate)),
    ] {
        argv.push("--write".into());
        argv.push(format!("{key}=[{value}]"));
    }
    let (w_file, bias_file) = (file(&format!("w_{device}.npy")), file(&format!("bias_{device}.npy")));
    for a in ["--run", "main", "--read", &format!("w={w_file}"), "--read", &format!("bias={bias_file}")] {
        argv.push(a.into());
    }
    argv.extend(["--device".into(), device.into()]);
    let compile = |_: &Path, _: bool| Ok((image.clone(), Vec::new(), None));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = runtime::cli::main(&argv, &runtime::cli::Env::default(), &compile, &mut out, &mut err);
    if code != 0 {
        return Err(format!("{device}: exit status {code}\n{}", String::from_utf8_lossy(&err)));
    }
    let data = |f: &str| -> Vec<u8> {
        let bytes = std::fs::read(f).expect(f);
        bytes[runtime::data::npy_data_start(&bytes).expect(f)..].to_vec()
    };
    Ok(Run { stdout: String::from_utf8_lossy(&out).into_owned(), w: data(&w_file), bias: data(&bias_file) })
}

/// The epochs printed by the program, in order.
fn parse(stdout: &str) -> Vec<Epoch> {
    let mut values = std::collections::HashMap::new();
    let mut epochs = Vec::new();
    for line in stdout.lines() {
        let (key, value) = line.split_once(": ").unwrap_or_else(|| panic!("unexpected line {line:?}"));
        values.insert(key.to_string(), value.parse::<f32>().unwrap_or_else(|_| panic!("{line:?}")));
        if key == "test accuracy" {
            epochs.push(Epoch {
                train_loss: values["train loss"],
                train_accuracy: values["train accuracy"],
                test_loss: values["test loss"],
                test_accuracy: values["test accuracy"],
            });
        }
    }
    epochs
}

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// Runs `data` on both devices and checks them against each other and the
/// reference; returns the printed epochs.
fn train_and_check(data: &Data, s: Settings, scratch: &str) -> Vec<Epoch> {
    let image =
        compiler::compile_for_run(&example().join("regression.pir")).expect("regression.pir compiles").0;
    let dir = std::env::temp_dir().join(format!("poplar-tut5-{scratch}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, bytes: &[u8], shape: &[u64]| {
        std::fs::write(dir.join(name), runtime::data::to_npy(bytes, ElemType::UChar, shape)).unwrap();
    };
    let (train, test) = (data.train_labels.len() as u64, data.test_labels.len() as u64);
    write("train_images.npy", &data.train_images, &[train, 28, 28]);
    write("train_labels.npy", &data.train_labels, &[train]);
    write("test_images.npy", &data.test_images, &[test, 28, 28]);
    write("test_labels.npy", &data.test_labels, &[test]);
    let sim = run(&image, &dir, s, "sim");
    let cpu = run(&image, &dir, s, "cpu");
    let _ = std::fs::remove_dir_all(&dir);
    let (sim, cpu) = (sim.unwrap_or_else(|e| panic!("{e}")), cpu.unwrap_or_else(|e| panic!("{e}")));
    assert_eq!(sim.stdout, cpu.stdout, "sim and cpu print different figures");
    assert!(sim.w == cpu.w && sim.bias == cpu.bias, "sim and cpu trained different parameters");

    let epochs = parse(&sim.stdout);
    assert_eq!(epochs.len(), s.epochs, "one set of figures per epoch:\n{}", sim.stdout);
    let (want, w, bias) = reference(data, s);
    let seen = (s.batches * BATCH) as f32;
    let tested = (s.test_batches * BATCH) as f32;
    for (i, (got, want)) in epochs.iter().zip(&want).enumerate() {
        let close = |a: f32, b: f32| (a - b).abs() <= 1e-4 * b.abs().max(1e-3);
        let within_one = |a: f32, b: f32, n: f32| ((a - b) * n).abs() <= 1.5;
        assert!(
            close(got.train_loss, want.train_loss)
                && close(got.test_loss, want.test_loss)
                && within_one(got.train_accuracy, want.train_accuracy, seen)
                && within_one(got.test_accuracy, want.test_accuracy, tested),
            "epoch {}: the program printed {got:?}, the reference computes {want:?}",
            i + 1
        );
    }
    for (name, got, want) in [("w", floats(&sim.w), w), ("bias", floats(&sim.bias), bias)] {
        let scale = want.iter().fold(0f32, |m, v| m.max(v.abs()));
        let worst = got.iter().zip(&want).map(|(a, b)| (a - b).abs()).fold(0f32, f32::max);
        assert!(
            worst <= 1e-4 * scale,
            "{name}: differs from the reference by {worst} (largest |{name}| {scale})"
        );
    }
    epochs
}

#[test]
fn trains_on_synthetic_data() {
    let data = synthetic(400, 100);
    let s = Settings { epochs: 3, batches: 8, test_batches: 2, learning_rate: 0.1 };
    let epochs = train_and_check(&data, s, "synthetic");
    for pair in epochs.windows(2) {
        assert!(pair[1].train_loss < pair[0].train_loss, "the training loss did not fall: {epochs:?}");
    }
    let last = epochs.last().unwrap();
    assert!(last.test_accuracy >= 0.9, "test accuracy {} below 90%: {epochs:?}", last.test_accuracy);
}

#[test]
fn trains_on_mnist() {
    let Some(data) = mnist() else {
        println!("skipped: MNIST data absent (run examples/05_machine_learning/get_mnist.sh)");
        return;
    };
    let train = data.train_labels.len();
    assert!(train % BATCH == 0 && data.test_labels.len() % BATCH == 0, "whole batches");
    let s = Settings {
        epochs: 2,
        batches: train / BATCH,
        test_batches: data.test_labels.len() / BATCH,
        learning_rate: 0.1,
    };
    let epochs = train_and_check(&data, s, "mnist");
    assert!(epochs[1].train_loss < epochs[0].train_loss, "the training loss did not fall: {epochs:?}");
    assert!(epochs[1].test_accuracy >= 0.85, "test accuracy below 85%: {epochs:?}");
}
