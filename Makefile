# facescan — two commands from a fresh clone: `make run` and `make test`.
SWIFT     ?= swift
# SwiftPM passes the package's traits to the compiler as -D flags in the order of a Set, so in a
# new order each time it plans a build again (another --product, swift test after swift build, a
# touched manifest): the flags change and every module is compiled again (a release build, 2 to
# 5 minutes). With the Swift runtime's fixed hash seed the order stays the same and such a build
# compiles nothing. Only SwiftPM runs with it: the tests and the programs they run keep random seeds.
SWIFTPM   := SWIFT_DETERMINISTIC_HASHING=1 $(SWIFT)
# What building and running facescan needs (make deps, so make run): pkg-config and the libraries it
# links. The Swift toolchain brings its own needs.
RUN_PKGS  := pkg-config zlib1g-dev libpng-dev libturbojpeg0-dev libassimp-dev lib3mf-dev
# The programs the tests drive (make test-deps, so make test): slicer, Blender, admesh, GNU parallel,
# Slurm, shells for the completions, man, Chromium for the HTML report, numpy for the Python tools.
TEST_PKGS := parallel prusa-slicer blender python3-numpy admesh man-db slurm-wlm munge zsh fish chromium
SAMPLE    ?= samples/ict-neutral/capture.json
RELEASE   := .build/release/facescan
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# install: PREFIX (default /usr/local) and DESTDIR (staging, for packagers).
PREFIX    ?= /usr/local
BINDIR    := $(PREFIX)/bin
MANDIR    := $(PREFIX)/share/man/man1
BASHDIR   := $(PREFIX)/share/bash-completion/completions
ZSHDIR    := $(PREFIX)/share/zsh/site-functions
FISHDIR   := $(PREFIX)/share/fish/vendor_completions.d
GENMAN    := .build/release/generate-manual
MANPAGE   := .build/man/facescan.1
# The man page from the built facescan (make man, make test-build, the installed copy's rule).
define write-man
mkdir -p $(dir $(MANPAGE))
$(GENMAN) $(RELEASE) --date $(MANDATE) --output-directory $(dir $(MANPAGE))
endef
# The man page is dated by the last commit, so the same sources give the same page.
MANDATE   := $(shell git log -1 --format=%cs 2>/dev/null || echo 1970-01-01)

.PHONY: deps test-deps build release run test test-build check regress bench clean fuzz man install uninstall lint format examples docs pictures schema-venv usd-venv bpy-venv lib3mf-venv trimesh-venv

# Installs the packages of $(1) that are missing (apt-get, with sudo when not root).
apt_install = @missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

## deps: install what building and running facescan needs (RUN_PKGS: the libraries it links, libpng, libturbojpeg,
## assimp, lib3mf, zlib, and pkg-config) when missing; nothing the tests alone use.
deps:
	$(call apt_install,$(RUN_PKGS))

## test-deps: deps, and the programs the tests drive (TEST_PKGS: PrusaSlicer, Blender, admesh, GNU
## parallel, Slurm and munge, zsh, fish, man-db, Chromium, numpy) when missing.
test-deps: deps
	$(call apt_install,$(TEST_PKGS))

build: deps
	$(SWIFTPM) build

## release: the release binary, and swift-argument-parser's generate-manual tool beside it (small), so
## that make man and make install after make run compile nothing.
release: deps
	$(SWIFTPM) build -c release --product facescan $(RELEASE_FLAGS)
	$(SWIFTPM) build -c release --product generate-manual $(RELEASE_FLAGS)

## run: process the bundled sample into out/.
run: release
	$(RELEASE) process $(SAMPLE) --output-dir out

## test: build and run every test (unit, end-to-end on samples/), then the sample regression.
## The tests run on the release build (TESTING: -enable-testing, so the tests' @testable imports
## compile against it): one release build serves the tests, the CLI tests' runs of facescan, make
## regress, the man page and make docs (RELEASE_FLAGS), so no debug build is made. Besides it, the
## Examples package (traits: [], the articles' programs and the consumer ConsumerBuildTests
## checks, handed to swift test) and the fuzz build (ASan). Each is compiled once (SWIFTPM above).
## The release build, the Examples package and the Python environments are made side by side
## (make -j); the fuzz build starts beside them at the lowest priority (nice), so it takes the
## cycles the others leave idle (the test targets' compiles are one job each, on one core), and
## make fuzz waits for it (its build directory's lock) before running the targets, two at a
## time, alone. The two test targets run as two processes side by side (each test process runs
## two tests at a time on two cores; the CLI tests often wait on a child program or a clock, the
## library's do not), after one build (--skip-build, so SwiftPM's lock on .build need not keep
## them apart). Last, make docs. make check is the debug inner loop.
TESTING := -Xswiftc -enable-testing
test: test-deps
	FUZZ_BUILD_ONLY=1 nice -n 19 scripts/fuzz-reader >/dev/null 2>&1 &
	$(MAKE) -j4 --output-sync=target RELEASE_FLAGS='$(TESTING)' test-build examples schema-venv usd-venv bpy-venv lib3mf-venv trimesh-venv
	@echo "swift test -c release --skip-build: FaceScanKitTests and FacescanCLITests side by side (the CLI tests' log follows the library's)"
	@log=$$(mktemp); \
	FACESCAN_BIN="$(CURDIR)/$(RELEASE)" FACESCAN_CONSUMER_BIN="$(CURDIR)/Examples/.build/debug/consumer" \
	  $(SWIFT) test -c release $(TESTING) --skip-build --ignore-lock --filter FacescanCLITests >"$$log" 2>&1 & cli=$$!; \
	$(SWIFT) test -c release $(TESTING) --skip-build --ignore-lock --filter FaceScanKitTests; kit=$$?; \
	wait $$cli; status=$$?; cat "$$log"; rm -f "$$log"; \
	echo "FaceScanKitTests: exit $$kit; FacescanCLITests: exit $$status"; [ $$kit = 0 ] && [ $$status = 0 ]
	$(MAKE) regress RELEASE_FLAGS='$(TESTING)'
	FUZZ_SECONDS=30 FUZZ_JOBS=2 FUZZ_REPORT_ONLY=1 $(MAKE) fuzz
	$(MAKE) docs DOCS_CONFIG=release RELEASE_FLAGS='$(TESTING)'

## test-build: the release build with the tests (make test; RELEASE_FLAGS='$(TESTING)'), the
## generate-manual tool in the same flags and the man page from it.
test-build: deps
	$(SWIFTPM) build -c release --build-tests $(RELEASE_FLAGS)
	$(MAKE) man

## check: the inner loop while changing the library (CONTRIBUTING.md, "Build and test"): an
## incremental debug build of the tests and the library's unit tests (FaceScanKitTests) but the
## suites in CHECK_SKIP, which run the solid step, the limits, whole-file meshes and the coverage
## renders in a debug build (about 340 of their 450 s of CPU); no release build, no client
## program, no fuzzing. make test runs everything. CHECK_SKIP= runs every library suite.
CHECK_SKIP ?= Solid|LevelSetShellTests|LimitTests|RenderCoverageTests|MeshFileTests|UntangleTests
check:
	$(SWIFTPM) build --build-tests
	$(SWIFT) test --skip-build --filter FaceScanKitTests $(if $(CHECK_SKIP),--skip '$(CHECK_SKIP)')

## examples: build the Examples package (the code of the documentation's articles and the
## consumer ConsumerBuildTests checks; it depends on this one by path with traits: []) and run the
## articles' programs: a sample capture to face.stl/face.png, a scripted live scan.
examples: deps
	$(SWIFTPM) build --package-path Examples --scratch-path Examples/.build
	out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	  Examples/.build/debug/process-capture samples/ict-identity-ndjson/capture.ndjson "$$out" && \
	  test -s "$$out/face.stl" && test -s "$$out/face.png"
	Examples/.build/debug/live-scan

## docs: FaceScanKit's documentation (DocC catalog Sources/FaceScanKit/FaceScanKit.docc, docc convert)
## into .build/plugins/Swift-DocC/outputs/FaceScanKit.doccarchive; a DocC warning (a broken link) fails,
## and so does a public declaration without a /// comment (scripts/check-docs, checked first: it takes a second).
## FaceScanKit re-exports the lower layers' targets (docs/ARCHITECTURE.md), so its symbol graph is
## extracted here with those modules allowed in (the plugin's would hold the Pipeline layer only) and
## DocC converts the catalog with it.
# Every library target but the umbrella (Sources/FaceScan*), so a new stage needs no edit here.
LIBRARY_LAYERS := $(shell ls -d Sources/FaceScan* | sed 's|Sources/||' | grep -vx FaceScanKit | paste -sd, -)
DOCS_ARCHIVE := .build/plugins/Swift-DocC/outputs/FaceScanKit.doccarchive
# The build whose modules DocC reads: debug (make docs alone), release in make test (its one build).
DOCS_CONFIG ?= debug
docs: deps
	scripts/check-docs
	$(SWIFTPM) build -c $(DOCS_CONFIG) --target FaceScanKit $(RELEASE_FLAGS)
	@bin=$$($(SWIFTPM) build -c $(DOCS_CONFIG) --show-bin-path $(RELEASE_FLAGS)); graphs=.build/docs-symbol-graphs; rm -rf $$graphs; mkdir -p $$graphs $(dir $(DOCS_ARCHIVE)); \
	triple=$$(basename $$(dirname $$bin)); \
	maps=$$(for m in Sources/C*/module.modulemap $$bin/C*.build/module.modulemap; do [ -f $$m ] && printf -- '-Xcc -fmodule-map-file=%s ' $$(realpath $$m); done); \
	set -x; $(SWIFT) symbolgraph-extract -module-name FaceScanKit -target $$triple -I $$bin/Modules \
	  $$(pkg-config --cflags-only-I libpng 2>/dev/null) $$maps -minimum-access-level public -skip-inherited-docs \
	  -emit-extension-block-symbols -experimental-allowed-reexported-modules=$(LIBRARY_LAYERS) -output-dir $$graphs && \
	docc convert Sources/FaceScanKit/FaceScanKit.docc --additional-symbol-graph-dir $$graphs \
	  --fallback-display-name FaceScanKit --fallback-bundle-identifier FaceScanKit --warnings-as-errors \
	  --output-path $(DOCS_ARCHIVE)

## lint: the committed .swift-format style (swift format lint --strict) and the house rules the
## compiler does not check (scripts/check-layers: C imports, unchecked Sendable and unsafe files;
## the layers are targets, docs/ARCHITECTURE.md); fails on any finding.
LINT_DIRS := Sources Tests $(wildcard Examples)
lint:
	@status=0; \
	$(SWIFT) format lint --strict --recursive --parallel $(LINT_DIRS) || status=1; \
	scripts/check-layers || status=1; \
	exit $$status

## format: rewrite the sources in the committed .swift-format style (what make lint checks).
format:
	$(SWIFT) format --in-place --recursive --parallel $(LINT_DIRS)

## fuzz: build the libFuzzer targets (ASan) and run each FUZZ_SECONDS (default 60), FUZZ_JOBS
## (default 1) at a time; see scripts/fuzz-reader.
FUZZ_SECONDS ?= 60
fuzz: deps
	scripts/fuzz-reader $(FUZZ_SECONDS)

## man: the manual page, written by swift-argument-parser's generate-manual tool from the release
## binary's own description of its commands.
man: release
	$(write-man)

$(MANPAGE): $(RELEASE) $(GENMAN)
	$(write-man)

# Built by make release (make run) when missing; make install does not build them again.
$(RELEASE) $(GENMAN):
	$(MAKE) release

## install: what make release (and so make run) built — the release binary, its man page (written
## from it when missing or older) and bash/zsh/fish completions — under PREFIX (DESTDIR honoured);
## nothing is compiled when make run came first. After changing the sources, make release first.
install: $(RELEASE) $(MANPAGE)
	install -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHDIR)" "$(DESTDIR)$(ZSHDIR)" "$(DESTDIR)$(FISHDIR)"
	install -m 755 $(RELEASE) "$(DESTDIR)$(BINDIR)/facescan"
	install -m 644 $(MANPAGE) "$(DESTDIR)$(MANDIR)/facescan.1"
	$(RELEASE) --generate-completion-script bash > "$(DESTDIR)$(BASHDIR)/facescan"
	$(RELEASE) --generate-completion-script zsh > "$(DESTDIR)$(ZSHDIR)/_facescan"
	$(RELEASE) --generate-completion-script fish > "$(DESTDIR)$(FISHDIR)/facescan.fish"

## uninstall: remove what install put under PREFIX.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/facescan" "$(DESTDIR)$(MANDIR)/facescan.1" "$(DESTDIR)$(BASHDIR)/facescan" \
	  "$(DESTDIR)$(ZSHDIR)/_facescan" "$(DESTDIR)$(FISHDIR)/facescan.fish"

## regress: fresh release runs on samples/ compared with their expected.json (exit 1 on a change);
## REGRESS_FLAGS adds flags, e.g. "--junit regress-junit.xml --artifacts regress-artifacts" in CI.
regress: release
	$(RELEASE) regress $(REGRESS_FLAGS)

## bench: release build, then print the benchmark figures.
bench: deps bench-venv
	$(SWIFTPM) build -c release --product facescan
	$(SWIFTPM) build -c release --product facescan-bench
	.build/release/facescan-bench

## bench-venv: .venv-bench, the Python reference pipeline's libraries from PyPI (about 270 MB, once);
## when pip cannot install them the throughput section prints facescan's figure alone and says why.
bench-venv:
	@[ -x .venv-bench/bin/python ] || { echo "creating .venv-bench (PyPI: orjson numpy scipy trimesh meshoptimizer pillow)"; \
	  python3 -m venv .venv-bench && printf '*\n' > .venv-bench/.gitignore && \
	  .venv-bench/bin/pip install -q orjson numpy scipy trimesh meshoptimizer pillow \
	  || { rm -rf .venv-bench; echo "could not create .venv-bench: the Python reference is skipped"; }; }

## schema-venv: .venv-schema, Python's jsonschema from PyPI (a few MB, once), which the tests use to
## check every --json output against docs/schemas/ (scripts/check-json-schema); without it they say skipped.
schema-venv:
	@[ -x .venv-schema/bin/python ] || { echo "creating .venv-schema (PyPI: jsonschema)"; \
	  python3 -m venv .venv-schema && printf '*\n' > .venv-schema/.gitignore && \
	  .venv-schema/bin/pip install -q 'jsonschema>=4.18' \
	  || { rm -rf .venv-schema; echo "could not create .venv-schema: the schema test is skipped"; }; }

## usd-venv: .venv-usd, Pixar's USD (usd-core from PyPI, about 230 MB installed, once), which the USDZ tests use to
## open and validate every package facescan writes (Tests/usdz/check-usdz.py); without it they say skipped.
usd-venv:
	@[ -x .venv-usd/bin/python ] || { echo "creating .venv-usd (PyPI: usd-core)"; \
	  python3 -m venv .venv-usd && printf '*\n' > .venv-usd/.gitignore && \
	  .venv-usd/bin/pip install -q 'usd-core>=24.11' \
	  || { rm -rf .venv-usd; echo "could not create .venv-usd: the USDZ tests are skipped"; }; }

## bpy-venv: .venv-bpy, Blender as a Python module (bpy from PyPI, a 370 MB download, 1 GB installed, once; it imports USD,
## which Debian's Blender 3.4 is built without), for the USDZ Blender import test; without it that test says skipped.
bpy-venv:
	@[ -x .venv-bpy/bin/python ] || { echo "creating .venv-bpy (PyPI: bpy)"; \
	  python3 -m venv .venv-bpy && printf '*\n' > .venv-bpy/.gitignore && \
	  .venv-bpy/bin/pip install -q bpy \
	  || { rm -rf .venv-bpy; echo "could not create .venv-bpy: the USDZ Blender test is skipped"; }; }

## lib3mf-venv: .venv-lib3mf, the 3MF Consortium's lib3mf 2.x as a Python module (PyPI's lib3mf, about 35 MB installed, once),
## a 3MF reader other than the lib3mf 1.8 facescan writes with, which the colour tests use to read the 3MF's texture
## and texture coordinates back (Tests/colour/check-3mf.py); without it that test says skipped.
lib3mf-venv:
	@[ -x .venv-lib3mf/bin/python ] || { echo "creating .venv-lib3mf (PyPI: lib3mf)"; \
	  python3 -m venv .venv-lib3mf && printf '*\n' > .venv-lib3mf/.gitignore && \
	  .venv-lib3mf/bin/pip install -q 'lib3mf>=2.3' \
	  || { rm -rf .venv-lib3mf; echo "could not create .venv-lib3mf: the lib3mf colour test is skipped"; }; }

## trimesh-venv: .venv-trimesh, trimesh with numpy, Pillow and rtree from PyPI (about 130 MB installed, once), which the colour
## tests use to load the coloured OBJ, GLB and PLY and sample their colours (Tests/colour/sample-colours.py); without
## it that test says skipped.
trimesh-venv:
	@[ -x .venv-trimesh/bin/python ] || { echo "creating .venv-trimesh (PyPI: trimesh numpy pillow rtree)"; \
	  python3 -m venv .venv-trimesh && printf '*\n' > .venv-trimesh/.gitignore && \
	  .venv-trimesh/bin/pip install -q 'trimesh>=4' numpy pillow rtree \
	  || { rm -rf .venv-trimesh; echo "could not create .venv-trimesh: the trimesh colour test is skipped"; }; }

## pictures: docs/images/parts/, every sample's shell and relief rendered by facescan from the front
## and at three-quarter view (what docs/PRINTING.md shows); run it after a change to the solid parts.
PICTURES := docs/images/parts
pictures: release
	@mkdir -p $(PICTURES); out=$$(mktemp -d) && trap 'rm -rf "$$out"' EXIT && \
	for s in samples/*/; do \
	  c=$$(ls $$s/capture.* | head -1); n=$$(basename $$s); \
	  for part in shell relief; do \
	    flag=--solid; [ $$part = relief ] && flag=--base; \
	    $(RELEASE) process $$c $$flag -o "$$out" --name $$n-$$part --formats stl -q || exit 1; \
	    for v in front three-quarter; do \
	      $(RELEASE) render "$$out/$$n-$$part.stl" $(PICTURES)/$$n-$$part-$$v.png --view $$v --size 240 -q || exit 1; \
	    done; \
	  done; \
	done; echo "wrote $(PICTURES)/"

clean:
	rm -rf .build out
