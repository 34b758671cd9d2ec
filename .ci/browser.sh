#!/usr/bin/env bash
# Makes sure Debian's chromium is installed for the report's browser test
# (tests/report-browser.integration.test.ts drives it headless through playwright-core, which
# downloads no browser of its own).
set -euo pipefail

if [ -x /usr/bin/chromium ]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi

echo "chromium: installing Debian's package"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -q
$sudo_cmd apt-get install -y -q chromium
echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
