# The monitor's window. GUI suites run under Xvfb (xvfb-run -a) with the xcb platform,
# as on a desktop; without xvfb-run they fall back to the offscreen platform so a box without X
# still runs them. The suites that need a service run the real flotillad binary.
find_program(FLOTILLA_XVFB_RUN xvfb-run)

set(FLOTILLA_SCREENSHOT_DIR ${CMAKE_BINARY_DIR}/screenshots)

function(flotilla_monitor_ui_test name)
    add_executable(${name} ${name}.cpp)
    target_link_libraries(${name} PRIVATE flotilla_monitor_ui flotilla_testsupport
        flotilla_build_flags)
    # The first suite precompiles the header, the others reuse it (same flags).
    if(name STREQUAL "tst_monitor_ui")
        flotilla_pch(${name} tests.h)
    else()
        flotilla_pch_reuse(${name} tst_monitor_ui)
    endif()
    target_compile_definitions(${name} PRIVATE
        FLOTILLA_SCREENSHOT_DIR="${FLOTILLA_SCREENSHOT_DIR}")
    add_dependencies(${name} flotillad)
    if(FLOTILLA_XVFB_RUN)
        add_test(NAME ${name} COMMAND ${FLOTILLA_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
            $<TARGET_FILE:${name}>)
        set(qpa xcb)
    else()
        add_test(NAME ${name} COMMAND ${name})
        set(qpa offscreen)
    endif()
    # The rules are one variable: its ';' must not split the ENVIRONMENT list.
    set_tests_properties(${name} PROPERTIES TIMEOUT 300
        ENVIRONMENT "QT_QPA_PLATFORM=${qpa};QT_LOGGING_RULES=qt.httpserver.warning=false\\;flotilla.*.info=false\\;qt.qpa.*=false")
endfunction()

flotilla_monitor_ui_test(tst_monitor_ui)
flotilla_monitor_ui_test(tst_monitor_ui_dialogs)
flotilla_monitor_ui_test(tst_monitor_ui_agents)
# A connection an agent's allow-list sandbox refused, in its conversation and the table.
flotilla_monitor_ui_test(tst_monitor_ui_sandbox)
# Hosts: the Hosts view, the agents' Host column and filter, the host in the new-agent dialog.
flotilla_monitor_ui_test(tst_monitor_ui_hosts)
flotilla_monitor_ui_test(tst_monitor_ui_conversation)
flotilla_monitor_ui_test(tst_monitor_inbox)
flotilla_monitor_ui_test(tst_monitor_ui_changes)
flotilla_monitor_ui_test(tst_monitor_ui_services)
flotilla_monitor_ui_test(tst_monitor_ui_shaping)
