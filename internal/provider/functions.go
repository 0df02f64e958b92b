package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/provider"
)

var _ provider.ProviderWithFunctions = &KafkaProvider{}

// Functions lists every provider-defined function (Terraform 1.8+), one file each.
func (p *KafkaProvider) Functions(context.Context) []func() function.Function {
	return []func() function.Function{
		NewPartitionForKeyFunction,
	}
}
