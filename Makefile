# Fleet Street: developer commands. Run as root on Debian 12 (apt installs are skipped when present).
SHELL := /bin/bash
PLUGIN := fleet_street
VERSION := $(shell sed -n 's/^version=//p' metadata.txt)
VENV := .venv
PY := $(VENV)/bin/python
APT_PACKAGES := qgis python3-qgis qgis-providers python3-shapely python3-pyproj python3-venv \
	xvfb xauth imagemagick gdal-bin postgresql postgis postgresql-15-postgis-3 zip unzip
export PROJ_DATA ?= /usr/share/proj
export QT_QPA_PLATFORM ?= offscreen
export PYTHONDONTWRITEBYTECODE := 1

.PHONY: help deps apt venv lint test package emulator demo bench screenshot clean

help:
	@echo "make demo     fetch a demo area from the local emulator into a GeoPackage and a PNG map"
	@echo "make test     lint and run the test suite headless"
	@echo "make package  build dist/$(PLUGIN)-$(VERSION).zip"
	@echo "make bench    run the benchmarks against the emulator"
	@echo "make emulator run the local API emulator in the foreground"

deps: apt venv

# apt: only when a package is missing, so re-runs cost a dpkg query.
apt:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi

venv: $(VENV)/.ready

$(VENV)/.ready: requirements-dev.txt requirements-runtime.txt scripts/link_package.py
	/usr/bin/python3 -m venv --system-site-packages $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(PY) scripts/link_package.py
	touch $@

lint: venv
	$(VENV)/bin/ruff check .

test: deps lint
	FLEETSTREET_NO_SKIPS=1 $(PY) -m pytest

package: venv
	$(PY) scripts/package.py

emulator: deps
	$(PY) -m emulator

demo: deps
	$(PY) scripts/demo.py

bench: deps
	$(PY) -m benchmarks

clean:
	rm -rf dist build

screenshot: deps
	test -f demo_output/fleet_street_demo.gpkg || $(PY) scripts/demo.py
	$(PY) scripts/screenshot.py
