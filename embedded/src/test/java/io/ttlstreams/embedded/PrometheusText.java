package io.ttlstreams.embedded;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), so that a test can assert that a scrape
 * parses as Prometheus would parse it, then ask for samples: every line is a {@code # HELP}, a {@code # TYPE} with a
 * known type, or a sample {@code name{label="value",...} number}, whose family was typed before it.
 */
public final class PrometheusText {

    private static final String NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
    private static final Pattern TYPE =
            Pattern.compile("# TYPE (" + NAME + ") (counter|gauge|histogram|summary|untyped)");
    private static final Pattern HELP = Pattern.compile("# HELP (" + NAME + ") .*");
    private static final Pattern SAMPLE = Pattern.compile("(" + NAME + ")(\\{(.*)})? (\\S+)( -?\\d+)?");
    private static final Pattern LABEL =
            Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\[\\\\\"n])*)\",?");
    private static final List<String> SUFFIXES = List.of("_bucket", "_count", "_sum", "_total", "_created", "_max");

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    private final Map<String, String> types;
    private final List<Sample> samples;

    private PrometheusText(Map<String, String> types, List<Sample> samples) {
        this.types = types;
        this.samples = samples;
    }

    /**
     * Parses a scrape.
     *
     * @throws AssertionError naming the first line that Prometheus would refuse
     */
    public static PrometheusText parse(String text) {
        Map<String, String> types = new LinkedHashMap<>();
        List<Sample> samples = new ArrayList<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.isEmpty()) {
                continue;
            }
            Matcher type = TYPE.matcher(line);
            if (type.matches()) {
                if (types.put(type.group(1), type.group(2)) != null) {
                    throw new AssertionError("line " + (i + 1) + ": family " + type.group(1) + " typed twice");
                }
                continue;
            }
            if (HELP.matcher(line).matches()) {
                continue;
            }
            Matcher sample = SAMPLE.matcher(line);
            if (!sample.matches() || line.startsWith("#")) {
                throw new AssertionError("line " + (i + 1) + " is not Prometheus text: " + line);
            }
            String name = sample.group(1);
            if (family(name, types.keySet()).isEmpty()) {
                throw new AssertionError("line " + (i + 1) + ": sample " + name + " of no typed family");
            }
            samples.add(new Sample(name, labels(sample.group(3), i + 1), number(sample.group(4), i + 1)));
        }
        return new PrometheusText(types, samples);
    }

    private static Optional<String> family(String sampleName, Set<String> families) {
        if (families.contains(sampleName)) {
            return Optional.of(sampleName);
        }
        return SUFFIXES.stream()
                .filter(sampleName::endsWith)
                .map(suffix -> sampleName.substring(0, sampleName.length() - suffix.length()))
                .filter(families::contains)
                .findFirst();
    }

    private static Map<String, String> labels(String text, int line) {
        Map<String, String> labels = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return labels;
        }
        Matcher label = LABEL.matcher(text);
        int end = 0;
        while (label.find() && label.start() == end) {
            labels.put(label.group(1), label.group(2));
            end = label.end();
        }
        if (end != text.length()) {
            throw new AssertionError("line " + line + ": malformed labels {" + text + "}");
        }
        return labels;
    }

    private static double number(String text, int line) {
        switch (text) {
            case "NaN":
                return Double.NaN;
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            default:
                try {
                    return Double.parseDouble(text);
                } catch (NumberFormatException e) {
                    throw new AssertionError("line " + line + ": " + text + " is not a number", e);
                }
        }
    }

    /** The families' types by name. */
    public Map<String, String> types() {
        return types;
    }

    /** The samples named {@code name} whose labels include {@code labels} (label, value, label, value, ...). */
    public List<Sample> samples(String name, String... labels) {
        return samples.stream()
                .filter(sample -> sample.name().equals(name))
                .filter(sample -> {
                    for (int i = 0; i < labels.length; i += 2) {
                        if (!labels[i + 1].equals(sample.labels().get(labels[i]))) {
                            return false;
                        }
                    }
                    return true;
                })
                .toList();
    }

    /**
     * The value of the one sample named {@code name} with these labels.
     *
     * @throws AssertionError when there is not exactly one
     */
    public double value(String name, String... labels) {
        List<Sample> found = samples(name, labels);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " samples " + name + " " + List.of(labels) + " in the scrape");
        }
        return found.get(0).value();
    }

    /** The sum of the samples named {@code name} with these labels, e.g. a counter over the tasks that hold it. */
    public double sum(String name, String... labels) {
        return samples(name, labels).stream().mapToDouble(Sample::value).sum();
    }
}
