package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/diag"
)

func TestSumOffsetsRefusesOverflow(t *testing.T) {
	var diags diag.Diagnostics
	if got := sumOffsets(1<<62, 1<<62-1, "message_count", &diags); got != 1<<63-1 || diags.HasError() {
		t.Fatalf("got %d, %v", got, diags)
	}
	sumOffsets(1<<63-1, 1, "message_count", &diags)
	if !diags.HasError() {
		t.Fatal("a sum past 2^63-1 gave no error")
	}
}
