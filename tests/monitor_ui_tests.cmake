# The monitor's window against a real flotillad child process (issue 5). GUI suites run under
# Xvfb (xvfb-run -a) with the xcb platform, as on a desktop; without xvfb-run they fall back to
# the offscreen platform so a developer box without X still runs them.
find_program(FLOTILLA_XVFB_RUN xvfb-run)

set(FLOTILLA_SCREENSHOT_DIR ${CMAKE_BINARY_DIR}/screenshots)

add_executable(tst_monitor_ui tst_monitor_ui.cpp)
target_link_libraries(tst_monitor_ui PRIVATE flotilla_monitor_ui flotilla_testsupport
    flotilla_build_flags)
target_compile_definitions(tst_monitor_ui PRIVATE
    FLOTILLA_SCREENSHOT_DIR="${FLOTILLA_SCREENSHOT_DIR}")
add_dependencies(tst_monitor_ui flotillad)

if(FLOTILLA_XVFB_RUN)
    add_test(NAME tst_monitor_ui COMMAND ${FLOTILLA_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
        $<TARGET_FILE:tst_monitor_ui>)
    set(_flotilla_qpa xcb)
else()
    add_test(NAME tst_monitor_ui COMMAND tst_monitor_ui)
    set(_flotilla_qpa offscreen)
endif()
set_tests_properties(tst_monitor_ui PROPERTIES TIMEOUT 300
    ENVIRONMENT "QT_QPA_PLATFORM=${_flotilla_qpa};QT_LOGGING_RULES=qt.httpserver.warning=false\\;flotilla.*.info=false\\;qt.qpa.*=false")
