package manifests

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

//go:embed image-references
var imageReferences []byte

// ImageTag is one tag of image-references: the release's name for an image and the pull spec the
// manifests carry for it.
type ImageTag struct {
	Name string `json:"name"`
	From struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"from"`
}

// ImageReferences returns the tags of manifests/image-references.
func ImageReferences() ([]ImageTag, error) {
	var stream struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
		Spec       struct {
			Tags []ImageTag `json:"tags"`
		} `json:"spec"`
	}
	if err := yaml.UnmarshalStrict(imageReferences, &stream); err != nil {
		return nil, fmt.Errorf("image-references: %w", err)
	}
	if stream.Kind != "ImageStream" || stream.APIVersion != "image.openshift.io/v1" {
		return nil, fmt.Errorf("image-references: %s %s, want image.openshift.io/v1 ImageStream", stream.APIVersion, stream.Kind)
	}
	return stream.Spec.Tags, nil
}

// DeploymentImages returns every image the Deployment carries: its containers' images and each
// *_IMAGE environment value.
func DeploymentImages(d *appsv1.Deployment) []string {
	var out []string
	for _, c := range d.Spec.Template.Spec.Containers {
		out = append(out, c.Image)
		for _, e := range c.Env {
			if strings.HasSuffix(e.Name, "_IMAGE") {
				out = append(out, e.Value)
			}
		}
	}
	sort.Strings(out)
	return out
}

// CheckImageReferences says what is wrong between the tags and the Deployment's images: an image
// without exactly one tag, a tag whose image the Deployment does not carry, a duplicate tag name or a
// tag that is not a DockerImage.
func CheckImageReferences(tags []ImageTag, images []string) []string {
	var problems []string
	byImage, names := map[string][]string{}, map[string]bool{}
	for _, tag := range tags {
		if names[tag.Name] {
			problems = append(problems, fmt.Sprintf("tag %s appears twice", tag.Name))
		}
		names[tag.Name] = true
		if tag.From.Kind != "DockerImage" {
			problems = append(problems, fmt.Sprintf("tag %s: from.kind %q, want DockerImage", tag.Name, tag.From.Kind))
		}
		byImage[tag.From.Name] = append(byImage[tag.From.Name], tag.Name)
	}
	carried := map[string]bool{}
	for _, image := range images {
		carried[image] = true
		if n := len(byImage[image]); n != 1 {
			problems = append(problems, fmt.Sprintf("image %s has %d tags, want 1", image, n))
		}
	}
	for _, tag := range tags {
		if !carried[tag.From.Name] {
			problems = append(problems, fmt.Sprintf("tag %s names %s, which the Deployment does not carry", tag.Name, tag.From.Name))
		}
	}
	return problems
}
