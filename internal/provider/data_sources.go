package provider

// The plumbing every data source shares: registration, Configure and the unknown-provider check.
// How they read their configuration and write their state is in values.go, the attributes they
// share in shared_attributes.go; each data source's own schema and Read live in its own file.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/diag"
)

// DataSources lists every data source the provider serves, one file each.
func (p *KafkaProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewPartitionOffsetsDataSource,
		NewTopicOffsetsDataSource,
		NewConsumerGroupOffsetsDataSource,
		NewTopicsOffsetsDataSource,
		NewConsumerGroupsDataSource,
		NewTopicProducersDataSource,
		NewTopicsDrainedDataSource,
	}
}

// configureData is the shared Configure of every data source: it keeps the provider's client.
func configureData(req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) *providerData {
	if req.ProviderData == nil {
		return nil // the provider is not configured yet (validation); Read always comes after Configure
	}
	data, ok := req.ProviderData.(*providerData)
	if !ok {
		resp.Diagnostics.AddError("Unexpected provider data", fmt.Sprintf("got %T; this is a bug in the provider", req.ProviderData))
	}
	return data
}

// clientKnown reports whether there is a client to read with, and explains when there is not.
func clientKnown(data *providerData, diags *diag.Diagnostics) bool {
	if data == nil || data.client == nil {
		diags.AddError("Provider configuration not known yet", providerUnknownDetail)
		return false
	}
	return true
}

// providerUnknownDetail explains a read attempted while the provider's own configuration was unknown.
const providerUnknownDetail = "The kafka provider's configuration depends on values known only after apply " +
	"(for example bootstrap_servers taken from a cluster created in the same run), so there is no cluster to " +
	"read from while planning. Add depends_on = [<the resource that creates the cluster>] to this data source: " +
	"Terraform then reads it during apply, once the address is known. Nothing was dialled."
