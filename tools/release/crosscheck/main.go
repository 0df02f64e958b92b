// Command crosscheck type-checks the provider from source for every platform in .goreleaser.yml's
// builds[0].targets but -skip, with go/packages and no export data. CI's release check builds and
// installs only linux_amd64 (goreleaser --single-target); this shows that the other platforms the
// release workflow builds still compile, faster than nine go builds (tools/release/check.sh). The
// targets are read from .goreleaser.yml, so the two cannot drift.
//
// It proves what the type checker sees for that GOOS/GOARCH with CGO_ENABLED=0, as the release
// builds: the files the build constraints pick (_windows.go, //go:build), no undefined symbol, no
// type error, constants that fit the platform's int (386 and arm are 32-bit). Not what only the
// compiler and linker see (assembly, go:linkname, link errors), nor go vet's checks.
//
// Usage: go run ./tools/release/crosscheck [-config .goreleaser.yml] [-skip linux_amd64,...]
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
	"gopkg.in/yaml.v3"
)

const minTargets = 10 // as many as .goreleaser.yml has: fewer means it was misread

func main() {
	config := flag.String("config", ".goreleaser.yml", "goreleaser configuration to read builds[0].targets from")
	skip := flag.String("skip", "", "comma-separated targets not to check (built for real elsewhere)")
	flag.Parse()
	all, err := targets(*config)
	if err == nil && len(all) < minTargets {
		err = fmt.Errorf("%s: %d targets in builds[0].targets, want at least %d", *config, len(all), minTargets)
	}
	failed := err != nil
	if failed {
		fmt.Fprintln(os.Stderr, "crosscheck:", err)
	}
	for _, target := range all {
		if slices.Contains(strings.Split(*skip, ","), target) {
			continue
		}
		start := time.Now()
		if n, err := check(".", target); err != nil {
			fmt.Fprintf(os.Stderr, "crosscheck: %s: %v\n", target, err)
			failed = true
		} else {
			fmt.Printf("crosscheck: %s: %d packages type-checked in %.1f s\n", target, n, time.Since(start).Seconds())
		}
	}
	if failed {
		os.Exit(1)
	}
}

// targets reads builds[0].targets ("linux_amd64", ...) from a goreleaser configuration.
func targets(config string) ([]string, error) {
	var c struct{ Builds []struct{ Targets []string } }
	data, err := os.ReadFile(config)
	if err == nil {
		err = yaml.Unmarshal(data, &c)
	}
	if err == nil && len(c.Builds) == 0 {
		err = errors.New("no builds")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config, err)
	}
	return c.Builds[0].Targets, nil
}

// check type-checks the main package in dir, as goreleaser builds it, and every package it
// imports, from source, for target (GOOS_GOARCH); it returns how many it checked, or their errors.
func check(dir, target string) (int, error) {
	goos, goarch, ok := strings.Cut(target, "_")
	if !ok || strings.Contains(goarch, "_") {
		return 0, fmt.Errorf("target %q is not GOOS_GOARCH", target)
	}
	pkgs, err := packages.Load(&packages.Config{
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedSyntax | packages.NeedDeps | packages.NeedImports,
		Dir:  dir,
		Env:  append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
	}, ".")
	if err != nil {
		return 0, err
	}
	var errs []error
	n := 0
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		n++
		for _, e := range p.Errors {
			errs = append(errs, e)
		}
	})
	return n, errors.Join(errs...)
}
