package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// bootstrapServerValidator checks one "host:port" element while planning.
type bootstrapServerValidator struct{}

func (bootstrapServerValidator) Description(context.Context) string {
	return "must be host:port, one address per element, port 1-65535, IPv6 host in brackets"
}

func (v bootstrapServerValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (bootstrapServerValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := kafkaclient.CheckBootstrapServer(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid bootstrap server", err.Error()+".")
	}
}
