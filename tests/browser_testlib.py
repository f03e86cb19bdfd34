"""Headless Chromium for the browser tests (the replay viewer, ``tcgjax serve``): Debian's
``chromium`` and ``chromium-driver``, which ``make test`` installs, driven by selenium."""

import os

import pytest

CHROMIUM, DRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
HOW = (
    "the browser tests need Debian's chromium and chromium-driver "
    "(`make test` installs them: apt-get install -y chromium chromium-driver)"
)
# Flags for a machine without a display or a network: no sandbox (root), no GPU, no background
# connections (refused here, many at a time).
FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
)  # fmt: skip


def chromium():
    """A selenium Chrome driver on Debian's Chromium (the caller quits it); fails, never skips,
    naming how to install the browser when it is missing."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(DRIVER)):
        pytest.fail(HOW)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(service=Service(DRIVER), options=options)
