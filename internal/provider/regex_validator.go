package provider

// Whole-name patterns (name_regex, group_id_regex): checked while planning, compiled for the read.

import (
	"context"
	"fmt"
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// wholeMatchValidator checks, while planning, that a name pattern is valid RE2 syntax.
type wholeMatchValidator struct{}

func (wholeMatchValidator) Description(context.Context) string {
	return "must be an RE2 regular expression (Go's regexp syntax), matched against whole names"
}

func (v wholeMatchValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (wholeMatchValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := kafkaclient.WholeMatch(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid regular expression",
			fmt.Sprintf("%s. The pattern is RE2 syntax (https://github.com/google/re2/wiki/Syntax), matched "+
				"against the whole name: no lookaround or backreferences.", err))
	}
}

// wholeMatch compiles an optional whole-name pattern; nil when unset.
func wholeMatch(v types.String, attr path.Path, diags *diag.Diagnostics) *regexp.Regexp {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	re, err := kafkaclient.WholeMatch(v.ValueString())
	if err != nil {
		diags.AddAttributeError(attr, "Invalid regular expression", err.Error()+".")
	}
	return re
}
