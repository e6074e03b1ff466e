//! libFuzzer entry for the `codelet` target; the body is `fuzzing::codelet`.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzzing::codelet(data));
