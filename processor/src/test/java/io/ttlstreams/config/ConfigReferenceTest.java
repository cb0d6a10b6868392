package io.ttlstreams.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ConfigReferenceTest {

    private final String markdown = ConfigReference.everyOption();

    @Test
    void shouldListEveryOption() {
        ConfigDefinition.BASE.names().forEach(name -> assertThat(markdown).contains("| `" + name + "` |"));
        RuleConfig.configDef()
                .names()
                .forEach(name -> assertThat(markdown).contains("| `ttl.rule.<name>." + name + "` |"));
    }

    @Test
    void shouldShowTypeDefaultValidValuesImportanceAndDescription() {
        assertThat(markdown)
                .contains("| `ttl.punctuate.interval.ms` | long | `100` | [1,...] | medium | How often")
                .contains("| `ttl.rules` | list | required |")
                .contains("| `ttl.audit.topic` | string | `\"\"` | empty or a Kafka topic name | medium |")
                .contains("| `ttl.max.deletes.per.second` | int | none | null or [1,...] |")
                .contains("| `ttl.rule.<name>.mode` | string | `field` | [field, last-modified] | high |");
    }

    @Test
    void shouldGroupOptionsIntoTables() {
        assertThat(markdown)
                .contains("### Rules\n\n| Name | Type | Default | Valid values | Importance |")
                .contains("### HTTP and operations")
                .contains("## Rule options");
    }

    @Test
    void shouldEscapePlaceholdersThatMarkdownWouldTakeForHtml() {
        assertThat(markdown).contains("configured under ttl.rule.&lt;name>.").doesNotContain("under ttl.rule.<name>.");
    }

    @Test
    void shouldKeepEachRowToSixCells() {
        Pattern unescapedPipe = Pattern.compile("(?<!\\\\)\\|");
        markdown.lines()
                .filter(line -> line.startsWith("| `"))
                .forEach(
                        line -> assertThat(unescapedPipe.matcher(line).results().count())
                                .as(line)
                                .isEqualTo(7));
    }
}
