package kafkaharness

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// StreamsApp fetches kafka-streams and compiles StreamsReader into the cache,
// and the class path it returns runs the app on the broker's jars (without
// arguments it prints its usage and exits 2). A second call finds the build.
// On Kafka 3.x it fails (Kafka Streams 3.x has no
// group.protocol=streams) and leaves no build behind.
func TestStreamsAppBuildsReader(t *testing.T) {
	t.Parallel()
	o := scratchCache(t, accOptions(t))
	cp, err := StreamsApp(t.Context(), o)
	if strings.HasPrefix(o.Version, "3.") {
		if err == nil || !strings.Contains(err.Error(), "GROUP_PROTOCOL_CONFIG") {
			t.Fatalf("StreamsApp on Kafka %s: %q, %v; want javac's error on GROUP_PROTOCOL_CONFIG", o.Version, cp, err)
		}
		if left, _ := filepath.Glob(filepath.Join(o.Cache, "kafka-"+o.Version, "streams-*")); len(left) != 0 {
			t.Errorf("a failed build left %v", left)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	dir, _, _ := strings.Cut(cp, ":")
	if want := dir + ":" + filepath.Join(dir, "*"); cp != want {
		t.Errorf("class path %q, want %q", cp, want)
	}
	for _, f := range []string{filepath.Join("tfacc", "StreamsReader.class"), "kafka-streams-" + o.Version + ".jar"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the build lacks %s: %v", f, err)
		}
	}

	out, err := exec.CommandContext(t.Context(), "java", "-Xmx64m", "-XX:TieredStopAtLevel=1",
		"-cp", filepath.Join(LibsDir(o.Cache, o.Version), "*")+":"+cp, "tfacc.StreamsReader").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "usage: StreamsReader") {
		t.Errorf("StreamsReader without arguments: %v\n%s\nwant its usage and exit status 2", err, out)
	}

	again, err := StreamsApp(t.Context(), o)
	if err != nil || again != cp {
		t.Errorf("second StreamsApp: %q, %v; want the first build %q", again, err, cp)
	}
}
