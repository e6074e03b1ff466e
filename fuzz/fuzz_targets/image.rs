//! libFuzzer entry for the `image` target; the body is `fuzzing::image`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::image(data));
