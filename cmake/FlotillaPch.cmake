# Precompiled headers. Most of a Flotilla file's compile time is parsing Qt's headers (an empty
# file with the Qt headers the service uses takes ~2.7 s, a test suite's ~4.5 s of its ~6 s), and
# CI builds the tree twice (gcc, and clang with sanitizers). Each library floor precompiles
# cmake/pch/service.h once; the test suites of one kind share one precompiled header (REUSE_FROM a
# host with the same flags: a precompiled header is only valid for identical flags and macros).
# -DFLOTILLA_PCH=OFF builds without them (e.g. to check that every file includes what it uses).
option(FLOTILLA_PCH "Precompile the Qt headers (faster builds)" ON)

# flotilla_pch(<target> <header>): <target> precompiles <header> (a file under cmake/pch/).
function(flotilla_pch target header)
    if(FLOTILLA_PCH)
        target_precompile_headers(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cmake/pch/${header})
    endif()
endfunction()

# flotilla_pch_reuse(<target> <host>): <target> uses <host>'s precompiled header; <host> must have
# exactly the same compile flags and definitions as far as the header is concerned.
function(flotilla_pch_reuse target host)
    if(FLOTILLA_PCH)
        target_precompile_headers(${target} REUSE_FROM ${host})
    endif()
endfunction()
