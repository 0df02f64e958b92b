// Command bench is the provider's Terraform-level benchmark: it plans (-cmd plan) or applies (-cmd
// apply, a fresh state) N kafka_partition_offsets data sources of one topic, and one
// kafka_topic_offsets of a 10,000-partition topic, against an in-process kfake cluster (whose
// writes reach the client -rtt later), with this provider, with the kadm reference provider
// (tools/benchref) and with this provider built from other checkouts (-providers
// this,old=/tmp/main-export,kadm), and prints, per case, the medians of -runs runs: connections
// the cluster accepted, requests by API, the wall time of the terraform command and the
// provider's peak RSS, and the ratios of each provider to the last one.
//
// Peak RSS and CPU time: Terraform starts the provider binary of a dev_overrides directory; there
// it is a script that runs the real binary under /usr/bin/time -f "%M %U %S", so the figures are
// the kernel's maximum resident set size of the provider process itself (the largest, when
// Terraform starts it more than once in a plan), not Terraform's, and the CPU time (user and
// system) of every provider process of the plan: the part of a plan the provider can change.
//
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,1ms,20ms -wide 10000 -cmd plan,apply  (make bench)
//	go run ./tools/bench -n 200 -runs 3 -rtt 0,20ms -wide 0 -brokers 3    (make bench: leaders spread)
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

var (
	n         = flag.Int("n", 200, "kafka_partition_offsets data sources in the partition case")
	wide      = flag.Int("wide", 10000, "partitions of the topic in the kafka_topic_offsets case (0: no such case)")
	brokers   = flag.Int("brokers", 1, "brokers of the kfake cluster; partition leaders are spread over them")
	runs      = flag.Int("runs", 3, "plans per case and provider (the median is printed)")
	rtts      = flag.String("rtt", "0,20ms", "simulated round trips, comma-separated")
	providers = flag.String("providers", "this,kadm",
		"providers to compare: this, kadm (the reference), or NAME=DIR (this provider built from the checkout in DIR, e.g. another branch)")
	commands = flag.String("cmd", "plan", "Terraform commands to measure, comma-separated: plan, apply")
)

type result struct {
	wall        time.Duration
	rssKiB      int
	cpu         time.Duration // of the provider processes, user and system
	connections int64
	requests    map[int16]int
}

func main() {
	flag.Parse()
	log.SetFlags(0)
	work, err := os.MkdirTemp("", "tfbench")
	if err != nil {
		log.Fatal(err)
	}
	defer func() { _ = os.RemoveAll(work) }()
	bins := map[string]string{}
	var names []string
	for _, p := range strings.Split(*providers, ",") {
		name, dir, _ := strings.Cut(p, "=")
		bins[name] = build(work, name, dir)
		names = append(names, name)
	}
	type scenario struct {
		name, config string
	}
	scenarios := []scenario{
		{fmt.Sprintf("%d kafka_partition_offsets of one topic", *n),
			fmt.Sprintf("data \"kafka_partition_offsets\" \"p\" {\n  count     = %d\n  topic     = \"bench\"\n  partition = count.index\n}\n", *n)},
		{fmt.Sprintf("kafka_topic_offsets on %d partitions", *wide), "data \"kafka_topic_offsets\" \"t\" {\n  topic = \"wide\"\n}\n"},
	}
	if *wide == 0 {
		scenarios = scenarios[:1]
	}
	for _, rttS := range strings.Split(*rtts, ",") {
		rtt, err := time.ParseDuration(rttS)
		if err != nil {
			log.Fatalf("-rtt: %v", err)
		}
		for _, sc := range scenarios {
			for _, command := range strings.Split(*commands, ",") {
				fmt.Printf("\n### %s, %d broker(s), round trip %s (medians of %d runs of terraform %s)\n\n",
					sc.name, *brokers, rtt, *runs, command)
				// Runs alternate between the providers, so that all see the same load of a shared
				// machine.
				all := map[string][]result{}
				for i := 0; i < *runs; i++ {
					for _, p := range names {
						all[p] = append(all[p], run(work, bins[p], command, rtt, sc.config))
					}
				}
				med := map[string]result{}
				for _, p := range names {
					med[p] = median(all[p])
				}
				printTable(med, names, command)
			}
		}
	}
}

// build compiles a provider (from the checkout in src, if any) into
// work/<name>/bin/terraform-provider-kafka.real and writes the dev_overrides wrapper that
// measures its peak RSS, and a CLI configuration pointing at it.
func build(work, name, src string) string {
	pkg := map[string]string{"this": ".", "kadm": "./tools/benchref"}[name]
	if src != "" {
		pkg = "."
	}
	if pkg == "" {
		log.Fatalf("unknown provider %q (this, kadm, NAME=DIR)", name)
	}
	dir := filepath.Join(work, name)
	binary := filepath.Join(dir, "terraform-provider-kafka.real")
	cmd := exec.Command("go", "build", "-o", binary, pkg)
	cmd.Dir = src
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatalf("building %s: %v", name, err)
	}
	bin := filepath.Join(dir, "bin")
	must(os.MkdirAll(bin, 0o755))
	script := fmt.Sprintf("#!/bin/sh\nexec /usr/bin/time -a -o \"$BENCH_RSS_FILE\" -f '%%M %%U %%S' %q \"$@\"\n", binary)
	must(os.WriteFile(filepath.Join(bin, "terraform-provider-kafka"), []byte(script), 0o755))
	rc := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"kafka-offsets/kafka\" = %q\n  }\n  direct {}\n}\n", bin)
	must(os.WriteFile(filepath.Join(dir, "terraformrc"), []byte(rc), 0o644))
	return dir
}

// run starts a fresh kfake cluster, runs terraform command (plan, or apply of a fresh state) on
// config with the provider in dir and measures it.
func run(work, dir, command string, rtt time.Duration, config string) result {
	dl := &acctest.DelayedListener{Delay: rtt}
	c, err := kfake.NewCluster(kfake.NumBrokers(*brokers), kfake.SeedTopics(int32(*n), "bench"),
		kfake.SeedTopics(int32(max(*wide, 1)), "wide"), kfake.ListenFn(dl.Listen))
	must(err)
	defer c.Close()
	counts := acctest.CountRequests(c)
	tf, err := os.MkdirTemp(work, "plan")
	must(err)
	defer func() { _ = os.RemoveAll(tf) }()
	providerBlock := fmt.Sprintf("provider \"kafka\" {\n  bootstrap_servers = [%q]\n}\n", c.ListenAddrs()[0])
	head := "terraform {\n  required_providers {\n    kafka = { source = \"kafka-offsets/kafka\" }\n  }\n}\n"
	must(os.WriteFile(filepath.Join(tf, "main.tf"), []byte(head+providerBlock+config), 0o644))
	rssFile := filepath.Join(tf, "rss")
	args := map[string][]string{"plan": {"plan", "-refresh=true"}, "apply": {"apply", "-auto-approve"}}[command]
	if args == nil {
		log.Fatalf("-cmd: unknown command %q (plan, apply)", command)
	}
	cmd := exec.Command("terraform", append(args, "-input=false", "-no-color", "-lock=false")...)
	cmd.Dir = tf
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+filepath.Join(dir, "terraformrc"), "BENCH_RSS_FILE="+rssFile,
		"TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	wall := time.Since(start)
	if err != nil {
		log.Fatalf("terraform %s with %s: %v\n%s", command, dir, err, out)
	}
	res := result{wall: wall, connections: dl.Accepted.Load()}
	res.requests = counts()
	data, _ := os.ReadFile(rssFile)
	for _, line := range strings.Split(string(data), "\n") {
		var kib int
		var user, sys float64
		if _, err := fmt.Sscanf(line, "%d %f %f", &kib, &user, &sys); err != nil {
			continue // time's "Command exited with non-zero status" lines
		}
		res.rssKiB = max(res.rssKiB, kib)
		res.cpu += time.Duration((user + sys) * float64(time.Second))
	}
	return res
}

// median keeps, for each figure, its median over rs.
func median(rs []result) result {
	mid := len(rs) / 2
	out := result{requests: map[int16]int{}}
	walls := make([]time.Duration, len(rs))
	rss := make([]int, len(rs))
	cpus := make([]time.Duration, len(rs))
	conns := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], rss[i], cpus[i], conns[i] = r.wall, r.rssKiB, r.cpu, r.connections
	}
	slices.Sort(walls)
	slices.Sort(rss)
	slices.Sort(cpus)
	slices.Sort(conns)
	out.wall, out.rssKiB, out.cpu, out.connections = walls[mid], rss[mid], cpus[mid], conns[mid]
	for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.Metadata, kmsg.ListOffsets, kmsg.SASLHandshake} {
		vs := make([]int, len(rs))
		for i, r := range rs {
			vs[i] = r.requests[int16(k)]
		}
		slices.Sort(vs)
		out.requests[int16(k)] = vs[mid]
	}
	return out
}

// printTable prints the medians of each provider and, when there are several, the ratio of each
// to the last one (the reference: kadm, in the default order).
func printTable(med map[string]result, names []string, command string) {
	ref, others := names[len(names)-1], names[:len(names)-1]
	fmt.Printf("| | %s |", strings.Join(names, " | "))
	for _, nme := range others {
		fmt.Printf(" %s/%s |", nme, ref)
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(names)+len(others)))
	row := func(label string, f func(r result) float64, format string) {
		fmt.Printf("| %s |", label)
		for _, nme := range names {
			fmt.Printf(" "+format+" |", f(med[nme]))
		}
		for _, nme := range others {
			if f(med[ref]) == 0 {
				fmt.Printf(" |")
				continue
			}
			fmt.Printf(" %.2f× |", f(med[nme])/f(med[ref]))
		}
		fmt.Println()
	}
	row("connections opened", func(r result) float64 { return float64(r.connections) }, "%.0f")
	for _, k := range []kmsg.Key{kmsg.ApiVersions, kmsg.Metadata, kmsg.ListOffsets} {
		row(k.Name()+" requests", func(r result) float64 { return float64(r.requests[int16(k)]) }, "%.0f")
	}
	row(command+" wall time (s)", func(r result) float64 { return r.wall.Seconds() }, "%.2f")
	row("provider CPU time (s)", func(r result) float64 { return r.cpu.Seconds() }, "%.2f")
	row("provider peak RSS (MiB)", func(r result) float64 { return float64(r.rssKiB) / 1024 }, "%.1f")
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
