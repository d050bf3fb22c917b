# Builds the layering probes (tests/layering/CMakeLists.txt). Each REFUSED entry "target:header"
# must fail to build because `header` is not on its floor's include path; each ALLOWED target must
# build. Any other outcome (a refused probe that builds, or fails for another reason) fails.
foreach(entry IN LISTS REFUSED)
    string(REPLACE ":" ";" parts "${entry}")
    list(GET parts 0 target)
    list(GET parts 1 header)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(rc EQUAL 0)
        message(FATAL_ERROR "${target}: an upward include of ${header} built; the floors leak")
    endif()
    # gcc: "fatal error: http/HttpServer.h: No such file or directory";
    # clang: "fatal error: 'http/HttpServer.h' file not found".
    if(NOT "${out}${err}" MATCHES "${header}'?:? (No such file or directory|file not found)")
        message(FATAL_ERROR "${target} failed, but not for its include of ${header}:\n${out}${err}")
    endif()
    message(STATUS "${target}: refused (${header} is not on its floor's include path)")
endforeach()
foreach(target IN LISTS ALLOWED)
    execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${target}
        RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "${target}: a downward include failed to build:\n${out}${err}")
    endif()
    message(STATUS "${target}: builds")
endforeach()
