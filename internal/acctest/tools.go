package acctest

import (
	"archive/zip"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// toolPackages are where Kafka releases keep their command-line tools: release by release they
// moved from the Scala packages kafka.tools and kafka.admin to org.apache.kafka.tools
// (GetOffsetShell is there in 3.9.1, ConsoleProducer in 4.0, ConfigCommand after 4.2).
var toolPackages = []string{"org.apache.kafka.tools.", "kafka.tools.", "kafka.admin."}

// ToolClass is the main class of Kafka's tool name ("GetOffsetShell", "ConfigCommand") in the
// broker's jars (KAFKA_LIBS), wherever this release keeps it; the test is skipped without the
// jars and fails if no package of toolPackages holds the tool.
func ToolClass(t testing.TB, name string) string {
	t.Helper()
	libs := kafkaLibs(t)
	entries := classEntries(t, libs)
	for _, pkg := range toolPackages {
		class := pkg + name
		if entries[strings.ReplaceAll(class, ".", "/")+".class"] {
			return class
		}
	}
	t.Fatalf("no jar in %s holds Kafka's %s (looked in %s)", libs, name, strings.Join(toolPackages, ", "))
	return ""
}

// jarEntries caches classEntries by libs: the jars are read once per test binary.
var jarEntries = struct {
	sync.Mutex
	byLibs map[string]map[string]bool
}{byLibs: map[string]map[string]bool{}}

// classEntries is every entry of the Kafka jars in libs under kafka/ or org/apache/kafka/tools/.
func classEntries(t testing.TB, libs string) map[string]bool {
	t.Helper()
	jarEntries.Lock()
	defer jarEntries.Unlock()
	if m, ok := jarEntries.byLibs[libs]; ok {
		return m
	}
	jars, err := filepath.Glob(filepath.Join(libs, "kafka*.jar"))
	if err != nil || len(jars) == 0 {
		t.Fatalf("no Kafka jars in %s (%v)", libs, err)
	}
	m := map[string]bool{}
	for _, jar := range jars {
		r, err := zip.OpenReader(jar)
		if err != nil {
			t.Fatalf("reading %s: %v", jar, err)
		}
		for _, f := range r.File {
			if strings.HasPrefix(f.Name, "kafka/") || strings.HasPrefix(f.Name, "org/apache/kafka/tools/") {
				m[f.Name] = true
			}
		}
		r.Close()
	}
	jarEntries.byLibs[libs] = m
	return m
}
