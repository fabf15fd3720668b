# isopredict - convenience targets around CMake.
#   make demo   install missing Debian packages, build, predict on an example
#   make test   install missing Debian packages, build, run the whole suite
#               (a normal build and an ASan+UBSan build)
#   make quick  build, run the tests labelled quick (the daily loop)
#   make install [PREFIX=/usr/local]   the binary, man page, bash completion
#   make deb    a Debian package (build/isopredict_VERSION_ARCH.deb)
# Other targets: deps, build, asan, clean.

DEB_PACKAGES := build-essential cmake pkg-config libz3-dev libcjson-dev libcunit1-dev jq man-db python3 \
                postgresql-15 libpq-dev \
                libgraphviz-dev chromium
PREFIX ?= /usr/local
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD ?= build
ASAN_BUILD ?= build-asan
DEMO_TRACE ?= examples/traces/bank.json

.PHONY: all deps build asan demo test quick install deb clean

all: build

deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build $(BUILD) -j$(JOBS)

asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DIP_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j$(JOBS)

demo: build
	@out=$$(mktemp -d /tmp/isopredict-demo.XXXXXX); \
	echo "$$ isopredict --model=causal --out $$out $(DEMO_TRACE)"; \
	./$(BUILD)/src/cli/isopredict --model=causal --out $$out $(DEMO_TRACE); \
	status=$$?; echo "(exit status $$status)"; [ $$status -le 1 ]

test: build asan
	ctest --test-dir $(BUILD) --output-on-failure -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  ctest --test-dir $(ASAN_BUILD) --output-on-failure -j$(JOBS)

quick: build
	ctest --test-dir $(BUILD) --output-on-failure -L quick -j$(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

deb: build
	cd $(BUILD) && cpack -G DEB

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
