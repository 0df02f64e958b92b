package provider

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The gating recipes' own terraform test files (examples/gating/<recipe>/tests/*.tftest.hcl, the
// testing guide's): run with the terraform on PATH, as a module author runs them, against the
// provider built from this module. Mocked files need no broker; the others read the broker the
// acceptance tests use, arranged by the Go test that runs them.

// builtProvider is the provider binary's directory, built once per test process.
var builtProvider = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "tfprovider-kafka-recipes-")
	if err != nil {
		return "", err
	}
	out, err := exec.Command("go", "build", "-o", filepath.Join(dir, "terraform-provider-kafka"), "../..").CombinedOutput()
	if err != nil {
		return "", &buildError{out: string(out), err: err}
	}
	return dir, nil
})

type buildError struct {
	out string
	err error
}

func (e *buildError) Error() string { return e.err.Error() + ": " + e.out }

// terraformTest runs `terraform test -filter=<file>` in a copy of examples/gating/<recipe> (its
// .tf files and tests/), every file rewritten by r (nil: as written), with vars as -var NAME=VALUE
// pairs, and returns its output; a failed run fails t with the output. It skips where the
// terraform on PATH is older than 1.7, which has no mock_provider or override_data.
func terraformTest(t *testing.T, recipe string, r *strings.Replacer, file string, vars ...string) string {
	t.Helper()
	requireTerraformTest(t)
	cli := devOverridesConfig(t)
	dir := copyRecipe(t, recipe, r, file)
	args := []string{"test", "-no-color", "-filter=" + file}
	for _, v := range vars {
		args = append(args, "-var", v)
	}
	cmd := exec.Command(terraformBinary(), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+cli, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("terraform test %s in %s: %v\n%s", file, recipe, err, out)
	}
	return string(out)
}

// devOverridesConfig is the path of a CLI configuration whose dev_overrides point
// kafka-offsets/kafka at the provider built from this module (builtProvider).
func devOverridesConfig(t *testing.T) string {
	t.Helper()
	bin, err := builtProvider()
	if err != nil {
		t.Fatalf("build the provider: %v", err)
	}
	cli := filepath.Join(t.TempDir(), "cli.tfrc")
	rc := "provider_installation {\n  dev_overrides {\n    \"kafka-offsets/kafka\" = \"" + bin + "\"\n  }\n  direct {}\n}\n"
	if err := os.WriteFile(cli, []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	return cli
}

// wantRuns fails t unless terraform test's summary says exactly n runs passed and none failed.
func wantRuns(t *testing.T, out string, n int) {
	t.Helper()
	if want := "Success! " + strconv.Itoa(n) + " passed, 0 failed."; !strings.Contains(out, want) {
		t.Fatalf("want %q:\n%s", want, out)
	}
}

// copyRecipe copies examples/gating/<recipe>'s .tf files and the test file named (OpenTofu
// validates every test file, whatever -filter says) into a temporary directory, each file
// rewritten by r.
func copyRecipe(t *testing.T, recipe string, r *strings.Replacer, testFile string) string {
	t.Helper()
	src := filepath.Join("..", "..", "examples", "gating", recipe)
	dst := t.TempDir()
	for _, pattern := range []string{"*.tf", testFile} {
		files, err := filepath.Glob(filepath.Join(src, pattern))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			text, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if r != nil {
				text = []byte(r.Replace(string(text)))
			}
			rel, _ := filepath.Rel(src, f)
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dst, rel), text, 0o600); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dst
}

// terraformBinary is the Terraform the acceptance tests run (TF_ACC_TERRAFORM_PATH, which
// tools/terraform-versions.sh sets for each version it tests), else the terraform on PATH.
func terraformBinary() string {
	if bin := os.Getenv("TF_ACC_TERRAFORM_PATH"); bin != "" {
		return bin
	}
	return "terraform"
}

// requireTerraformTest skips t where the binary cannot run mocked tests: mock_provider and
// override_data came with Terraform 1.7 and OpenTofu 1.8.
func requireTerraformTest(t *testing.T) {
	t.Helper()
	bin := terraformBinary()
	cmd := exec.Command(bin, "version", "-json")
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE=/dev/null") // OpenTofu warns on stdout of a missing one
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s version: %v", bin, err)
	}
	var v struct {
		Version string `json:"terraform_version"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s version -json: %v", bin, err)
	}
	name, least := "Terraform", 7
	if filepath.Base(bin) == "tofu" {
		name, least = "OpenTofu", 8
	}
	var major, minor int
	if _, err := fmt.Sscanf(v.Version, "%d.%d", &major, &minor); err != nil || major < 1 || (major == 1 && minor < least) {
		t.Skipf("%s %s has no mock_provider (%s 1.%d+): the recipes' terraform test files need it", name, v.Version, name, least)
	}
}

// TestRecipeTestHarness: the harness runs a recipe's mocked tests (rollout-precondition's: it
// blocks a lagging group and a bare mock, rolls out a caught-up one).
func TestRecipeTestHarness(t *testing.T) {
	wantRuns(t, terraformTest(t, "rollout-precondition", nil, "tests/mocked.tftest.hcl"), 3)
}
