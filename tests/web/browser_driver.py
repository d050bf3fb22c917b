#!/usr/bin/python3
"""A real headless Chromium, driven with Selenium, for tst_web_browser.

The test (C++) owns the service, the mock model and the assertions; this script only drives the
browser. It reads one JSON command per line on stdin and answers each with one JSON line on
stdout: {"ok": true, "value": ...} or {"ok": false, "error": "..."}. Commands:

  open {path, width?, height?, mobile?, clearStorage?}   load a page of the service
  viewport {width, height, mobile?}                      phone or desktop metrics (CDP)
  click {css}                                            click the first match (waits for it)
  type {css, text, clear?}                               type into the first match
  select {css, value}                                    choose an <option> by value
  wait_js {js, timeout?}                                 until the script returns something truthy
  eval {js}                                              run a script, return its value
  screenshot {name}                                      PNG into --screenshots
  logs {}                                                the browser console since the last call
  quit {}

Uses Debian's chromium, chromium-driver and python3-selenium (scripts/install-deps.sh).
"""
import argparse
import json
import os
import sys
import time
import traceback

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select


def make_driver(insecure_tls=False):
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get('FLOTILLA_CHROMIUM', '/usr/bin/chromium')
    for arg in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
                '--disable-extensions', '--no-first-run', '--no-default-browser-check',
                '--disable-background-networking', '--disable-sync', '--mute-audio',
                '--window-size=1280,900', '--lang=en-US'):
        options.add_argument(arg)
    if insecure_tls:  # the TLS suite's self-signed certificate
        options.add_argument('--ignore-certificate-errors')
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    service = Service(os.environ.get('FLOTILLA_CHROMEDRIVER', '/usr/bin/chromedriver'))
    return webdriver.Chrome(service=service, options=options)


class Bridge:
    def __init__(self, base, shots, insecure_tls=False):
        self.base = base.rstrip('/')
        self.shots = shots
        self.driver = make_driver(insecure_tls)
        self.driver.set_script_timeout(30)

    def find(self, css, timeout=10):
        end = time.time() + timeout
        while True:
            found = self.driver.find_elements(By.CSS_SELECTOR, css)
            visible = [e for e in found if e.is_displayed()]
            if visible:
                return visible[0]
            if time.time() > end:
                raise RuntimeError(f'no visible element matches {css!r}')
            time.sleep(0.05)

    def viewport(self, width, height, mobile=False):
        self.driver.execute_cdp_cmd('Emulation.setDeviceMetricsOverride', {
            'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': bool(mobile)})

    def open(self, path='/', width=None, height=None, mobile=False, clearStorage=False):
        if width:
            self.viewport(width, height or 800, mobile)
        if clearStorage:
            self.driver.get(self.base + '/signin')
            self.driver.execute_script('localStorage.clear()')
        self.driver.get(self.base + path)
        return self.driver.current_url

    def click(self, css, timeout=10):
        self.find(css, timeout).click()

    def type(self, css, text, clear=False, timeout=10):
        el = self.find(css, timeout)
        if clear:
            el.clear()
        el.send_keys(text)

    def select(self, css, value, timeout=10):
        Select(self.find(css, timeout)).select_by_value(value)

    def wait_js(self, js, timeout=10):
        end = time.time() + timeout
        while True:
            value = self.driver.execute_script(js)
            if value:
                return value
            if time.time() > end:
                raise RuntimeError(f'timed out after {timeout} s waiting for: {js}')
            time.sleep(0.05)

    def eval(self, js):
        return self.driver.execute_script(js)

    def screenshot(self, name):
        os.makedirs(self.shots, exist_ok=True)
        path = os.path.join(self.shots, name + '.png')
        self.driver.save_screenshot(path)
        return path

    def logs(self):
        return [f"{e['level']} {e['message']}" for e in self.driver.get_log('browser')]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--url', required=True)
    parser.add_argument('--screenshots', required=True)
    parser.add_argument('--ignore-certificate-errors', action='store_true')
    args = parser.parse_args()
    try:
        bridge = Bridge(args.url, args.screenshots, args.ignore_certificate_errors)
    except Exception as e:  # the browser did not start: say why, once
        print(json.dumps({'ok': False, 'error': f'browser did not start: {e}'}), flush=True)
        return 1
    print(json.dumps({'ok': True, 'value': 'ready'}), flush=True)
    try:
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            command = json.loads(line)
            name = command.pop('cmd')
            if name == 'quit':
                print(json.dumps({'ok': True}), flush=True)
                break
            try:
                value = getattr(bridge, name)(**command)
                answer = {'ok': True, 'value': value}
            except Exception as e:
                answer = {'ok': False, 'error': f'{type(e).__name__}: {e}',
                          'trace': traceback.format_exc(limit=3)}
            print(json.dumps(answer, default=str), flush=True)
    finally:
        bridge.driver.quit()
    return 0


if __name__ == '__main__':
    sys.exit(main())
