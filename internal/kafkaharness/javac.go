package kafkaharness

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// javaBuild is one Java source of tools/kafka compiled against a Kafka
// version's jars into the cache, once per version and source text.
type javaBuild struct {
	src    string // tools/kafka/<Class>.java, package tfacc
	prefix string // the cache dir's name before the source hash: "rsm", "streams"
	// fetch, if set, puts more jars into the build dir before javac (they
	// join its class path and stay in the dir).
	fetch func(ctx context.Context, dir string) error
}

// sourceNextToPom is tools/kafka/name, beside the pom that Options names.
func sourceNextToPom(o Options, name string) (string, error) {
	if o.Pom == "" {
		return "", errors.New("Options.Pom is empty: " + name + " is found beside tools/kafka/pom.xml")
	}
	return filepath.Join(filepath.Dir(o.Pom), name), nil
}

// compile returns the build's dir, <cache>/kafka-<version>/<prefix>-<first 12
// hex digits of the source's SHA-256>, so that a build of the same source is
// found again. It builds in a temporary dir and renames it into place
// under the cache lock, so a build cut short is never taken for a whole one.
func (b javaBuild) compile(ctx context.Context, o Options, libs string) (string, error) {
	src, err := os.ReadFile(b.src)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(src)
	dir := filepath.Join(o.Cache, "kafka-"+o.Version, b.prefix+"-"+hex.EncodeToString(sum[:])[:12])
	if b.built(dir) {
		return dir, nil
	}
	unlock, err := lockFile(filepath.Join(o.Cache, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if b.built(dir) {
		return dir, nil
	}
	if _, err := exec.LookPath("javac"); err != nil {
		return "", fmt.Errorf("javac not found (needed to compile %s)", b.src)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if b.fetch != nil {
		if err := b.fetch(ctx, tmp); err != nil {
			return "", err
		}
	}
	cp := filepath.Join(libs, "*") + ":" + filepath.Join(tmp, "*")
	if out, err := exec.CommandContext(ctx, "javac", "-nowarn", "-cp", cp, "-d", tmp, b.src).CombinedOutput(); err != nil {
		return "", fmt.Errorf("compiling %s against Kafka %s: %w\n%s", b.src, o.Version, err, out)
	}
	return dir, os.Rename(tmp, dir)
}

// built reports whether dir holds the compiled class (package tfacc).
func (b javaBuild) built(dir string) bool {
	class := strings.TrimSuffix(filepath.Base(b.src), ".java") + ".class"
	_, err := os.Stat(filepath.Join(dir, "tfacc", class))
	return err == nil
}

// mavenArtifact copies one artifact (no dependencies) into dir, with Maven's
// dependency:copy.
func mavenArtifact(ctx context.Context, pom, coordinates, dir string) error {
	if _, err := exec.LookPath("mvn"); err != nil {
		return errors.New("mvn not found (needed to fetch " + coordinates + ")")
	}
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "mvn", "-q", "-B", "-f", pom, "dependency:copy",
		"-Dartifact="+coordinates, "-DoutputDirectory="+dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("could not fetch %s with %s: %w\n%s", coordinates, pom, err, ansi.ReplaceAllString(out.String(), ""))
	}
	return nil
}
