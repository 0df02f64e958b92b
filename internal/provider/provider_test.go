package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
)

// Acceptance tests run Terraform (the terraform on PATH) against the in-process provider and the
// real broker started by `make testacc`; internal/acctest holds the broker-side helpers.

func TestProviderSchemaIsValid(t *testing.T) {
	// Building the server validates every schema (names, descriptions, validators) at once.
	srv, err := providerserver.NewProtocol6WithError(New("test")())()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range resp.Diagnostics {
		t.Errorf("schema diagnostic: %s: %s", d.Summary, d.Detail)
	}
	if _, ok := resp.DataSourceSchemas["kafka_partition_offsets"]; !ok {
		t.Fatalf("kafka_partition_offsets missing from the schema; have %v", resp.DataSourceSchemas)
	}
}
