package io.ttlstreams.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void shouldShowFewerDecimalsForLargerNumbers() {
        assertThat(Table.text(0.0734)).isEqualTo("0.073");
        assertThat(Table.text(17.456)).isEqualTo("17.46");
        assertThat(Table.text(241.26)).isEqualTo("241.3");
        assertThat(Table.text(43985.4)).isEqualTo("43985");
        assertThat(Table.text(Double.NaN)).isEqualTo("-");
        assertThat(Table.text(null)).isEqualTo("-");
        assertThat(Table.text(7L)).isEqualTo("7");
    }

    @Test
    void shouldAlignColumnsUnderTheirNames() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Table.print(
                new PrintStream(bytes, true, StandardCharsets.UTF_8),
                List.of(row("ttl-streams", 17.456), row("pass", 7.0)),
                List.of("variant", "cpu"));
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .containsExactly("    variant    cpu", "ttl-streams  17.46", "       pass  7.000");
    }

    @Test
    void shouldWriteEveryColumnAsCsvWithTheConstantsAppended() {
        Map<String, Object> row = row("a,b", 1.5);
        row.put("missing", null);
        assertThat(Table.csv(List.of(row), Map.of("commit", "abc")))
                .isEqualTo("variant,cpu,missing,commit\n\"a,b\",1.500,,abc\n");
    }

    private static Map<String, Object> row(String variant, double cpu) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("variant", variant);
        row.put("cpu", cpu);
        return row;
    }
}
