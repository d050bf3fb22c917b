#!/usr/bin/python3
"""Page weight and time to the first agent list of the web page, on a throttled network.

Starts the real flotillad (a temporary HOME and data dir, a token, loopback, a free port), creates
--agents agents over REST, then loads the page in headless Chromium (Debian's chromium +
chromium-driver, Selenium from python3-selenium) with Chrome DevTools'
Network.emulateNetworkConditions, --runs times cold (browser cache cleared and disabled) and
--runs times warm (cache kept: the page revalidates with its ETag, assets come from the cache).
"Time to first agent list" is the page's own performance mark `flotilla:first-agent-list`, set
when the agents view first renders a non-empty list: milliseconds since navigation start, so it
includes the HTML, the assets, the token check, the WebSocket handshake and agents_update.
Page weight is measured over HTTP: every file of the page, as sent without and with gzip.

Usage: bench/web_bench.py --flotillad build/service/flotillad [--runs 7] [--agents 20]
                          [--profile fast3g|slow4g|none] [--out results.json]
"""
import argparse
import gzip
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

# Chrome DevTools' presets (throughput in bytes/s): "Fast 3G" and "Slow 4G"-like.
PROFILES = {
    'fast3g': {'latency': 150, 'downloadThroughput': 1.6 * 1024 * 1024 / 8 * 0.9,
               'uploadThroughput': 750 * 1024 / 8 * 0.9},
    'slow4g': {'latency': 80, 'downloadThroughput': 9 * 1024 * 1024 / 8,
               'uploadThroughput': 1.5 * 1024 * 1024 / 8},
    'none': None,
}
TOKEN = 'bench-web-token'


def start_service(binary, home):
    env = dict(os.environ, HOME=home, AUTH_TOKEN=TOKEN, XDG_DATA_HOME=home + '/data',
               QT_LOGGING_RULES='*.info=false')
    env.pop('FLOTILLA_PORT', None)
    proc = subprocess.Popen([binary, '--port', '0', '--data-dir', home + '/flotilla'],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 15
    while time.time() < deadline:
        line = proc.stdout.readline()
        m = re.search(r'listening on 127\.0\.0\.1:(\d+)', line or '')
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise SystemExit('flotillad did not start')


def request(base, method, path, body=None, headers=None):
    req = urllib.request.Request(base + path, method=method, data=body, headers=headers or {})
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.status, dict(r.headers), r.read()


def page_weight(base):
    _, _, html = request(base, 'GET', '/', headers={'Accept-Encoding': 'identity'})
    paths = ['/'] + sorted(set(re.findall(r'"(/assets/[0-9a-f]{12}/[^"]+)"', html.decode())))
    # Modules imported by modules (all are preloaded from the page today; be safe anyway).
    rows = []
    for p in paths:
        _, _, raw = request(base, 'GET', p, headers={'Accept-Encoding': 'identity'})
        _, h, packed = request(base, 'GET', p, headers={'Accept-Encoding': 'gzip'})
        if h.get('Content-Encoding') == 'gzip':
            assert gzip.decompress(packed) == raw, p
        rows.append({'path': p, 'bytes': len(raw), 'sent_gzip': len(packed)})
    return rows


def make_driver(width=360, height=740):
    options = webdriver.ChromeOptions()
    options.binary_location = '/usr/bin/chromium'
    for a in ('--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
              '--disable-extensions', '--no-first-run', '--disable-background-networking'):
        options.add_argument(a)
    d = webdriver.Chrome(service=Service('/usr/bin/chromedriver'), options=options)
    d.execute_cdp_cmd('Emulation.setDeviceMetricsOverride',
                      {'width': width, 'height': height, 'deviceScaleFactor': 1, 'mobile': True})
    return d


def first_list_ms(driver, base, timeout=60):
    driver.get(base + '/')
    end = time.time() + timeout
    while time.time() < end:
        v = driver.execute_script(
            "const m = performance.getEntriesByName('flotilla:first-agent-list');"
            "return m.length ? m[0].startTime : null")
        if v is not None:
            return float(v)
        time.sleep(0.01)
    raise RuntimeError('the agent list never showed')


def summary(values):
    return {'min': round(min(values), 1), 'median': round(statistics.median(values), 1),
            'max': round(max(values), 1), 'runs': [round(v, 1) for v in values]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--flotillad', required=True)
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--agents', type=int, default=20)
    ap.add_argument('--profile', choices=sorted(PROFILES), default='fast3g')
    ap.add_argument('--out')
    args = ap.parse_args()
    home = tempfile.mkdtemp(prefix='web-bench-')
    proc, port = start_service(os.path.abspath(args.flotillad), home)
    base = f'http://127.0.0.1:{port}'
    driver = None
    try:
        auth = {'X-Auth-Token': TOKEN, 'Content-Type': 'application/json'}
        os.makedirs(home + '/work', exist_ok=True)
        for i in range(args.agents):
            body = json.dumps({'name': f'agent-{i:03d}', 'cwd': home + '/work'}).encode()
            request(base, 'POST', '/api/agents', body, auth)
        weight = page_weight(base)

        driver = make_driver()
        driver.execute_cdp_cmd('Network.enable', {})
        driver.get(base + '/signin')
        driver.execute_script(f"localStorage.setItem('flotilla.token', '{TOKEN}')")
        profile = PROFILES[args.profile]
        if profile:
            driver.execute_cdp_cmd('Network.emulateNetworkConditions',
                                   dict(offline=False, **profile))
        cold, warm = [], []
        for _ in range(args.runs):
            driver.execute_cdp_cmd('Network.clearBrowserCache', {})
            driver.execute_cdp_cmd('Network.setCacheDisabled', {'cacheDisabled': True})
            cold.append(first_list_ms(driver, base))
        driver.execute_cdp_cmd('Network.setCacheDisabled', {'cacheDisabled': False})
        first_list_ms(driver, base)  # fill the cache
        for _ in range(args.runs):
            warm.append(first_list_ms(driver, base))
        result = {
            'profile': args.profile, 'conditions': profile, 'agents': args.agents,
            'files': len(weight), 'bytes': sum(r['bytes'] for r in weight),
            'bytes_gzip': sum(r['sent_gzip'] for r in weight), 'per_file': weight,
            'first_agent_list_ms_cold': summary(cold), 'first_agent_list_ms_warm': summary(warm),
            'chromium': driver.capabilities.get('browserVersion'),
        }
    finally:
        if driver:
            driver.quit()
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(home, ignore_errors=True)
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, 'w') as f:
            f.write(text + '\n')
    print(f"page: {result['files']} files, {result['bytes']} bytes, {result['bytes_gzip']} gzipped")
    for kind in ('cold', 'warm'):
        s = result[f'first_agent_list_ms_{kind}']
        print(f"first agent list ({args.profile}, {kind}, {args.runs} runs): "
              f"min {s['min']} ms, median {s['median']} ms, max {s['max']} ms")
    return 0


if __name__ == '__main__':
    sys.exit(main())
