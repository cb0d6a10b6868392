package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ConfigReferenceTest {

    private final String markdown = TtlStreamsConfig.configReferenceMarkdown();

    @Test
    void shouldListEveryOption() {
        TtlStreamsConfig.configDef().names()
                .forEach(name -> assertThat(markdown).contains("| `" + name + "` |"));
        RuleConfig.configDef().names()
                .forEach(name -> assertThat(markdown).contains("| `ttl.rule.<name>." + name + "` |"));
    }

    @Test
    void shouldShowTypeDefaultValidValuesImportanceAndDescription() {
        assertThat(markdown)
                .contains("| `ttl.punctuate.interval.ms` | long | `100` | [1,...] | medium | How often")
                .contains("| `ttl.rules` | list | required |")
                .contains("| `ttl.audit.topic` | string | `\"\"` | empty or a Kafka topic name | medium |")
                .contains("| `ttl.max.deletes.per.second` | double | none | null or a number > 0 |")
                .contains("| `ttl.rule.<name>.mode` | string | `field` | [field, last-modified] | high |");
    }

    @Test
    void shouldGroupOptionsIntoTables() {
        assertThat(markdown).contains("### Rules\n\n| Name | Type | Default | Valid values | Importance |")
                .contains("### Embedded local stack")
                .contains("## Rule options");
    }

    @Test
    void shouldKeepEachRowOnOneLine() {
        markdown.lines().filter(line -> line.startsWith("| `"))
                .forEach(line -> assertThat(line.chars().filter(c -> c == '|').count() - line.split("\\\\\\|").length
                        + 1).as(line).isEqualTo(7));
    }
}
