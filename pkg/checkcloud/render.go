package checkcloud

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/assets"
)

// Output formats of -o.
const (
	FormatText = "text"
	FormatJSON = "json"
	FormatYAML = "yaml"
)

// secretRefPrefix starts the parameters that name the driver secret: the same for every class, so
// the text output folds them into one line.
const secretRefPrefix = "csi.storage.k8s.io/"

// Render writes the report in the format; JSON and YAML carry every field for scripts.
func Render(w io.Writer, r Report, format string) error {
	switch format {
	case FormatJSON:
		data, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case FormatYAML:
		data, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	case FormatText, "":
		_, err := io.WriteString(w, text(r))
		return err
	}
	return fmt.Errorf("unknown output format %q: use text, json or yaml", format)
}

func text(r Report) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("Cloud:       %s (%s)\n", r.Cloud, r.AuthURL)
	if r.Manila != nil {
		p("Manila:      %s (region %s, interface %s)\n", r.Manila.URL, orNone(r.Manila.Region), r.Manila.Interface)
	}
	if r.Admin != nil {
		what := "admin: private share types are listed"
		if !*r.Admin {
			what = "not admin: only public share types are listed, as the operator does"
		}
		p("Roles:       %s (%s)\n", orNone(strings.Join(r.Roles, ", ")), what)
	}
	if r.Listing != "" && r.ShareTypes != nil {
		p("Share types: %d, %s\n", len(r.ShareTypes), r.Listing)
	}
	for _, st := range r.ShareTypes {
		visibility := "public"
		if !st.Public {
			visibility = "private"
		}
		p("\n  %s (%s, id %s)\n", st.Name, visibility, st.ID)
		p("    protocols: %s\n", protocols(st.Protocols))
		if c := st.StorageClass; c != nil {
			writeClass(&b, "StorageClass", c, snapshotClass)
		}
		if c := st.CephFSStorageClass; c != nil {
			writeClass(&b, "CephFS StorageClass", c, cephFSSnapshotClass)
		}
		mark := ""
		if st.NeedsAction {
			mark = " [action needed]"
		}
		if st.StorageClass == nil && st.CephFSStorageClass == nil {
			p("    no StorageClass%s: %s\n", mark, st.NoClass)
		} else if st.NoCephFSClass != "" {
			p("    no CephFS StorageClass%s: %s\n", mark, st.NoCephFSClass)
		}
	}
	writeExportLocations(&b, r.ExportLocations)
	if len(r.Warnings) > 0 {
		p("\nWarnings:\n")
		for _, w := range r.Warnings {
			p("  - %s\n", w)
		}
	}
	p("\n")
	if r.Usable {
		p("Result: Manila is usable.\n")
	} else {
		p("Result: Manila is NOT usable: %s\n", r.Problem)
		if r.Hint != "" {
			p("Hint:   %s\n", r.Hint)
		}
	}
	return b.String()
}

// snapshotClass is the operator's VolumeSnapshotClass of the NFS driver; cephFSSnapshotClass the
// CephFS instance's (named in their assets).
var (
	snapshotClass       = assets.ObjectName(assets.VolumeSnapshotClass)
	cephFSSnapshotClass = assets.ObjectName(assets.CephFSVolumeSnapshotClass)
)

// protocols reads the protocols a share type gets classes for.
func protocols(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, " and ")
}

func writeClass(b *strings.Builder, kind string, c *ClassReport, snapshots string) {
	def := ""
	if c.Default {
		def = " (the cluster's default class)"
	}
	fmt.Fprintf(b, "    %s %s%s\n", kind, c.Name, def)
	if c.NameNote != "" {
		fmt.Fprintf(b, "      note: %s\n", c.NameNote)
	}
	keys := make([]string, 0, len(c.Parameters))
	refs := 0
	for k := range c.Parameters {
		if strings.HasPrefix(k, secretRefPrefix) {
			refs++
			continue
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "      %s: %s\n", k, c.Parameters[k])
	}
	if refs > 0 {
		fmt.Fprintf(b, "      (and %d %s* parameters naming the driver secret)\n", refs, secretRefPrefix)
	}
	fmt.Fprintf(b, "      reclaimPolicy %s, volumeBindingMode %s, allowVolumeExpansion %t\n", c.ReclaimPolicy, c.VolumeBindingMode, c.AllowVolumeExpansion)
	if c.Snapshots {
		fmt.Fprintf(b, "      snapshots: yes (VolumeSnapshotClass %s)\n", snapshots)
	} else {
		fmt.Fprintf(b, "      snapshots: no (the share type lacks snapshot_support=True and create_share_from_snapshot_support=True; VolumeSnapshots of its claims fail)\n")
	}
	if len(c.MountOptions) > 0 {
		fmt.Fprintf(b, "      mountOptions: %s\n", strings.Join(c.MountOptions, ", "))
	}
}

func writeExportLocations(b *strings.Builder, e ExportLocationsReport) {
	setting := "not set"
	switch {
	case e.Setting == "":
	case e.From != "":
		setting = fmt.Sprintf("%s = %s (from %s)", e.Setting, e.CIDR, e.From)
	case e.CIDR != "":
		setting = e.CIDR
	default:
		setting = e.Setting // unresolved: Problem says why
	}
	fmt.Fprintf(b, "\nExport locations: exportLocations.network %s\n", setting)
	if e.Problem != "" {
		fmt.Fprintf(b, "  problem: %s; on a cluster the node plugin keeps its current runtime config\n", e.Problem)
		return
	}
	fmt.Fprintf(b, "  %s\n  runtime config: %s\n", e.Effect, e.RuntimeConfig)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
