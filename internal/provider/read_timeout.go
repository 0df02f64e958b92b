package provider

// The timeout argument of every data source: the bound of its own reads, in place of the
// provider's timeout (a one-partition read and a read of thousands of groups need not share one),
// with the same type and bounds. It rides on the read's context (kafkaclient.WithReadTimeout).

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// readTimeoutAttribute is a data source's timeout; more, if not empty, is one sentence more for
// its description.
func readTimeoutAttribute(more string) schema.StringAttribute {
	return schema.StringAttribute{
		CustomType: goDurationType{},
		Optional:   true,
		MarkdownDescription: fmt.Sprintf("Upper bound of this data source's read as a whole (connecting, metadata, "+
			"retries and all), in place of the provider's `timeout`: a Go duration from `%q` to `%q`, such as "+
			"`\"5m\"` for a read of thousands of groups or `\"5s\"` for one partition. Default: the provider's "+
			"`timeout`.%s", shortDuration(minTimeout), shortDuration(maxTimeout), more),
		Validators: []validator.String{timeoutBounds}, // provider_timeout.go
	}
}

// withReadTimeout is ctx carrying the data source's timeout for its reads, or ctx as it is where
// the argument is unset.
func withReadTimeout(ctx context.Context, config tfsdk.Config, diags *diag.Diagnostics) context.Context {
	v := configValue[goDurationValue](ctx, config, "timeout", diags)
	if v.IsNull() || v.IsUnknown() {
		return ctx
	}
	return kafkaclient.WithReadTimeout(ctx, goDuration(v, diags))
}

// timeoutName names the timeout that bounded a read (perRead: the data source's own), for the
// advice of an error that says it ran out.
func timeoutName(perRead bool) string {
	if perRead {
		return "this data source's timeout"
	}
	return "the provider's timeout"
}
