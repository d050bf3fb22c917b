# A real browser against the real service (issue 15): headless Chromium, driven with Selenium by
# tests/web/browser_driver.py, from a Qt Test that owns the service (in-process, with the pinned
# Claude Code CLI and the mock model) and every assertion. Debian's chromium, chromium-driver and
# python3-selenium come from scripts/install-deps.sh; Debian's python3 is the one with selenium.
find_program(FLOTILLA_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
flotilla_test(tst_web_browser)
target_compile_definitions(tst_web_browser PRIVATE
    FLOTILLA_BROWSER_DRIVER="${CMAKE_CURRENT_SOURCE_DIR}/web/browser_driver.py"
    FLOTILLA_SYSTEM_PYTHON="${FLOTILLA_SYSTEM_PYTHON}"
    FLOTILLA_SCREENSHOT_DIR="${CMAKE_BINARY_DIR}/screenshots")
set_tests_properties(tst_web_browser PROPERTIES TIMEOUT 300 LABELS browser)
