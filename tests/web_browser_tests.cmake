# A real browser against the real service: headless Chromium, driven with Selenium by
# tests/web/browser_driver.py, from Qt Tests that own the service (in-process, with the pinned
# Claude Code CLI and the mock model) and every assertion. Debian's chromium, chromium-driver and
# python3-selenium come from scripts/install-deps.sh; Debian's python3 is the one with selenium.
find_program(FLOTILLA_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
function(flotilla_browser_test name)
    flotilla_test(${name})
    target_compile_definitions(${name} PRIVATE
        FLOTILLA_BROWSER_DRIVER="${CMAKE_CURRENT_SOURCE_DIR}/web/browser_driver.py"
        FLOTILLA_SYSTEM_PYTHON="${FLOTILLA_SYSTEM_PYTHON}"
        FLOTILLA_SCREENSHOT_DIR="${CMAKE_BINARY_DIR}/screenshots")
    set_tests_properties(${name} PROPERTIES TIMEOUT 300 LABELS browser)
endfunction()
flotilla_browser_test(tst_web_browser)
# Usage, budgets and sandboxes on the page.
flotilla_browser_test(tst_web_usage)
# What a request will change, and tables in replies.
flotilla_browser_test(tst_web_replies)
# --tls-cert/--tls-key: HTTPS, WSS, origins, agents' plain loopback listener, refusals, and the
# page in Chromium over TLS.
flotilla_browser_test(tst_web_tls)
# What shapes agents on the page: the library (classes with icons, skills, prompts, hooks,
# buildings), the new-agent form, the agent's header and the saved-prompts picker.
flotilla_browser_test(tst_web_shaping)
# Hosts on the page: the agents' host badge and filter, the Hosts view (state, error, check, add,
# edit, remove, the 409 of a host in use) and the host in the new-agent form.
flotilla_browser_test(tst_web_hosts)
