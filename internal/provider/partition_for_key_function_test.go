package provider

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfversion"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// functionConfig is outputs alone: functions need no provider block, and the test framework
// serves the provider under the local name kafka.
func functionConfig(outputs string) string { return outputs }

// needsFunctions skips a test, saying why, where the binary has no provider functions: Terraform
// before 1.8, OpenTofu before 1.7. tfversion.SkipBelow sees only the version number, and
// OpenTofu's numbers run apart from Terraform's.
var needsFunctions = []tfversion.TerraformVersionCheck{functionsCheck{}}

type functionsCheck struct{}

func (functionsCheck) CheckTerraformVersion(_ context.Context, req tfversion.CheckTerraformVersionRequest, resp *tfversion.CheckTerraformVersionResponse) {
	name, minimum := "Terraform", tfversion.Version1_8_0
	if openTofu() {
		name, minimum = "OpenTofu", tfversion.Version1_7_0
	}
	if req.TerraformVersion.Core().LessThan(minimum) {
		resp.Skip = fmt.Sprintf("%s %s has no provider functions (they came in %s %s): skipping test",
			name, req.TerraformVersion, name, minimum)
	}
}

// openTofu reports whether the binary the tests run is OpenTofu: TF_ACC_TERRAFORM_PATH, as
// terraform-plugin-testing picks it, else terraform on PATH.
var openTofu = sync.OnceValue(func() bool {
	bin := os.Getenv("TF_ACC_TERRAFORM_PATH")
	if bin == "" {
		bin = "terraform"
	}
	out, err := exec.Command(bin, "version").Output()
	// OpenTofu may print CLI configuration warnings before its "OpenTofu v1.12.6" line.
	return err == nil && bytes.Contains(append([]byte("\n"), out...), []byte("\nOpenTofu v"))
})

// Kafka's own Java producer (kafka-console-producer, default partitioner) writes keyed records
// to a real broker; franz-go reads back where each landed; partition_for_key, called by
// Terraform in an output, must name the same partition for every key.
func TestAccPartitionForKey_matchesJavaProducer(t *testing.T) {
	t.Parallel()
	k := acctest.Connect(t)
	const partitions = 7
	topic := k.CreateTopic(acctest.TopicName(t, ""), partitions, nil)
	keys := []string{"", "tenant-42", "ключ", "🔑 key", "a b c"}
	for i := range 195 {
		keys = append(keys, fmt.Sprintf("user-%d", i))
	}
	acctest.JavaProduceKeyed(t, topic, keys)
	landed := k.KeyPartitions(topic, len(keys))

	want := map[string]knownvalue.Check{}
	quoted := make([]string, len(keys))
	for i, key := range keys {
		p, ok := landed[key]
		if !ok {
			t.Fatalf("no record with key %q came back (got %d keys)", key, len(landed))
		}
		want[key] = knownvalue.Int64Exact(int64(p))
		quoted[i] = fmt.Sprintf("%q", key)
	}
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   needsFunctions,
		Steps: []resource.TestStep{{
			Config: functionConfig(fmt.Sprintf(`
locals {
  keys = [%s]
}
output "partitions" {
  value = { for key in local.keys : key => provider::kafka::partition_for_key(key, %d) }
}
`, strings.Join(quoted, ", "), partitions)),
			ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownOutputValue("partitions", knownvalue.MapExact(want))},
		}},
	})
}

// A partition count below 1 is an error that names the argument; no broker needed.
func TestPartitionForKey_badCount(t *testing.T) {
	for _, count := range []string{"0", "-3", "1000001"} {
		resource.UnitTest(t, resource.TestCase{
			ProtoV6ProviderFactories: protoV6ProviderFactories,
			TerraformVersionChecks:   needsFunctions,
			Steps: []resource.TestStep{{
				Config:      functionConfig(`output "p" { value = provider::kafka::partition_for_key("k", ` + count + `) }`),
				ExpectError: errorLike(`Invalid value for "partition_count" parameter`, "value must be between 1 and 1000000, got: "+count),
			}},
		})
	}
}

// Pinned through Terraform: franz-go's Kafka-compatible partitioner agrees (kafkaclient tests it
// over 20,000 keys); this checks the function's plumbing, a one-partition topic and the empty key.
func TestPartitionForKey_values(t *testing.T) {
	resource.UnitTest(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		TerraformVersionChecks:   needsFunctions,
		Steps: []resource.TestStep{{
			Config: functionConfig(`
output "one"   { value = provider::kafka::partition_for_key("tenant-42", 1) }
output "empty" { value = provider::kafka::partition_for_key("", 1000) }
output "t42"   { value = provider::kafka::partition_for_key("tenant-42", 12) }
`),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownOutputValue("one", knownvalue.Int64Exact(0)),
				statecheck.ExpectKnownOutputValue("empty", knownvalue.Int64Exact(franzPartition("", 1000))),
				statecheck.ExpectKnownOutputValue("t42", knownvalue.Int64Exact(franzPartition("tenant-42", 12))),
			},
		}},
	})
}
