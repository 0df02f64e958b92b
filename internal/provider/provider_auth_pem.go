package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

type pemKind int

const (
	pemCertificate pemKind = iota
	pemKey
)

// pemValidator checks PEM text while planning. Its errors never quote the value.
type pemValidator struct{ kind pemKind }

func (v pemValidator) Description(context.Context) string {
	if v.kind == pemKey {
		return "must be a PEM private key (not encrypted)"
	}
	return "must be PEM text of one or more certificates"
}

func (v pemValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v pemValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	name := attrName(req.Path)
	var err error
	if v.kind == pemKey {
		err = kafkaclient.ParseClientKey(name, req.ConfigValue.ValueString())
	} else {
		_, err = kafkaclient.ParseCACert(name, req.ConfigValue.ValueString())
	}
	if err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid PEM", err.Error()+".")
	}
}
