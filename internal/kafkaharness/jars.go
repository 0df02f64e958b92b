package kafkaharness

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
)

// DefaultVersion is the Kafka release used when none is given.
const DefaultVersion = "4.4.0"

// CacheDir is the jar cache shared with tools/kafka.sh: KAFKA_CACHE_DIR, else
// ~/.cache/terraform-provider-kafka, so either tool finds the other's download.
func CacheDir() string {
	if d := os.Getenv("KAFKA_CACHE_DIR"); d != "" {
		return d
	}
	home := os.Getenv("HOME")
	if home == "" {
		home = "/tmp"
	}
	return filepath.Join(home, ".cache", "terraform-provider-kafka")
}

// LibsDir is where version's jars live in cache.
func LibsDir(cache, version string) string {
	return filepath.Join(cache, "kafka-"+version, "libs")
}

// Jars returns the directory of o.Version's jars, downloading them with Maven
// (o.Pom is tools/kafka/pom.xml) if the cache lacks them. The ".complete"
// marker is written last, so an interrupted download is redone.
func Jars(ctx context.Context, o Options) (string, error) {
	o = o.withDefaults()
	cache, version := o.Cache, o.Version
	libs := LibsDir(cache, version)
	if complete(libs) {
		return libs, nil
	}
	if err := os.MkdirAll(filepath.Dir(libs), 0o755); err != nil {
		return "", err
	}
	// A lock file in the cache (flock on $cache/.lock), so that a download
	// by either waits for the other and then finds the marker.
	unlock, err := lockFile(filepath.Join(cache, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	if complete(libs) {
		return libs, nil
	}
	if err := mavenCopy(ctx, o.Pom, version, libs); err != nil {
		_ = os.Remove(filepath.Dir(libs)) // only if empty: a version Maven does not know
		return "", err
	}
	return libs, nil
}

func complete(libs string) bool {
	_, err := os.Stat(filepath.Join(libs, ".complete"))
	return err == nil
}

// ansi strips the colour codes Debian's Maven 3.8 prints even in batch mode.
var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// mavenCopy resolves kafka_2.13 and its runtime dependencies into libs via a
// temporary directory, then renames it into place and writes the marker.
func mavenCopy(ctx context.Context, pom, version, libs string) error {
	if _, err := exec.LookPath("mvn"); err != nil {
		return errors.New("mvn not found (needed to fetch Kafka jars)")
	}
	// Kafka 3.x logs through reload4j, 4.x through log4j2: see the pom.
	profile := "log4j2"
	if strings.HasPrefix(version, "3.") {
		profile = "reload4j,!log4j2"
	}
	tmp := fmt.Sprintf("%s.tmp.%d", libs, os.Getpid())
	_ = os.RemoveAll(tmp)
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "mvn", "-q", "-B", "-f", pom, "-P", profile,
		"-Dkafka.version="+version, "dependency:copy-dependencies",
		"-DincludeScope=runtime", "-DoutputDirectory="+tmp)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("could not resolve org.apache.kafka:kafka_2.13:%s with %s: %w\n%s",
			version, pom, err, ansi.ReplaceAllString(out.String(), ""))
	}
	if err := os.RemoveAll(libs); err != nil {
		return err
	}
	if err := os.Rename(tmp, libs); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(libs, ".complete"), []byte(version+"\n"), 0o644)
}

// lockFile takes an exclusive flock, blocking; the returned func releases it.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { f.Close() }, nil
}

// FindPom finds tools/kafka/pom.xml in the module that contains dir (tests run
// in their package's directory, the command usually at the repository root).
func FindPom(dir string) (string, error) {
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "tools", "kafka", "pom.xml"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above " + dir + ": cannot find tools/kafka/pom.xml")
		}
		dir = parent
	}
}
