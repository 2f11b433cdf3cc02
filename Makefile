# facescan — two commands from a fresh clone: `make run` and `make test`.
SWIFT     ?= swift
APT_PKGS  := pkg-config libpng-dev libassimp-dev parallel prusa-slicer lib3mf-dev blender python3-numpy admesh man-db slurm-wlm munge
SAMPLE    ?= samples/ict-neutral/capture.json
RELEASE   := .build/release/facescan
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps build release run test regress bench clean

## deps: install the system libraries facescan links (libpng, assimp) when they are missing.
deps:
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product facescan

## run: process the bundled sample into out/.
run: release
	$(RELEASE) process $(SAMPLE) --output-dir out

## test: build and run every test (unit, end-to-end on samples/), then the sample regression.
test: deps
	$(SWIFT) build
	$(SWIFT) test
	$(MAKE) regress

## regress: fresh release runs on samples/ compared with their expected.json (exit 1 on a change).
regress: release
	$(RELEASE) regress

## bench: release build, then print the benchmark figures.
bench: deps
	$(SWIFT) build -c release --product facescan
	$(SWIFT) build -c release --product facescan-bench
	.build/release/facescan-bench

clean:
	rm -rf .build out
