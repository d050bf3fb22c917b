# Regression tests for what the fuzz targets (fuzz/) found: unit tests that run in every build,
# not only in the sanitizer tree. Included at the end of tests/CMakeLists.txt.
flotilla_test(tst_fuzz_regressions)
