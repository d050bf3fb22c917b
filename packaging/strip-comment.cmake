# CPACK_PRE_BUILD_SCRIPTS hook: CPACK_STRIP_FILES has already stripped the staged binaries; also
# drop the .comment and .note sections, as Debian's dh_strip does (lintian:
# binary-has-unneeded-section). Runs on the staging tree only, never on the build outputs.
file(GLOB_RECURSE _files LIST_DIRECTORIES false "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*")
set(_bins ${_files})
list(FILTER _bins INCLUDE REGEX "/usr/bin/[^/]+$")
if(NOT _bins)
    message(FATAL_ERROR "strip-comment.cmake: no binaries under ${CPACK_TEMPORARY_INSTALL_DIRECTORY}")
endif()
foreach(_bin IN LISTS _bins)
    execute_process(COMMAND "${CPACK_FLOTILLA_STRIP}" --remove-section=.comment
                            --remove-section=.note "${_bin}" RESULT_VARIABLE _rc)
    if(NOT _rc EQUAL 0)
        message(FATAL_ERROR "strip ${_bin} failed: ${_rc}")
    endif()
endforeach()
