// Audit 2026-11 (devfile_include): a device file is no source.
#include "/dev/zero"
