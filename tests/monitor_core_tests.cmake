# Monitor core suites: ServiceClient, the models and MonitorSession against a real
# flotillad (the binary, or the service in-process over loopback), no window. Included from
# tests/CMakeLists.txt; paths are relative to this file so it also works from another scope.
function(flotilla_monitor_core_test name)
    add_executable(${name} ${CMAKE_CURRENT_LIST_DIR}/${name}.cpp)
    target_link_libraries(${name} PRIVATE flotilla_monitor_core flotilla_testsupport
        flotilla_build_flags)
    # The first suite precompiles the header, the others reuse it (same flags).
    if(name STREQUAL "tst_monitor_session_models")
        flotilla_pch(${name} tests.h)
    else()
        flotilla_pch_reuse(${name} tst_monitor_session_models)
    endif()
    add_dependencies(${name} flotillad)
    add_test(NAME ${name} COMMAND ${name})
    # One ENVIRONMENT entry: the rules are joined with an escaped semicolon.
    set_tests_properties(${name} PROPERTIES TIMEOUT 120
        ENVIRONMENT "QT_LOGGING_RULES=qt.httpserver.warning=false\\;flotilla.*.info=false")
endfunction()

flotilla_monitor_core_test(tst_monitor_session_models)
flotilla_monitor_core_test(tst_monitor_client)
flotilla_monitor_core_test(tst_monitor_session)
flotilla_monitor_core_test(tst_monitor_session_agent)
flotilla_monitor_core_test(tst_monitor_session_codex)
flotilla_monitor_core_test(tst_monitor_session_history)
flotilla_monitor_core_test(tst_monitor_hosts)
flotilla_monitor_core_test(tst_monitor_local_token)
flotilla_monitor_core_test(tst_monitor_ssh)
flotilla_monitor_core_test(tst_monitor_ssh_target)
flotilla_monitor_core_test(tst_monitor_transcript)
flotilla_monitor_core_test(tst_monitor_tool_presentation)
flotilla_monitor_core_test(tst_monitor_worktree_diff)
