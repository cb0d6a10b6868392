package io.ttlstreams.rules;

import static io.ttlstreams.rules.RuleBuilder.fieldRule;
import static io.ttlstreams.rules.RuleBuilder.lastModifiedRule;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.ttlstreams.contract.NamespacePattern;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TtlRuleTest {

    private static void assertRejected(ThrowingCallable construction, String message) {
        assertThatThrownBy(construction)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }

    @ParameterizedTest
    @ValueSource(longs = {-1, 2147483648L, Long.MIN_VALUE})
    void shouldRejectExpireAfterSecondsOutsideMongoDbsRange(long seconds) {
        assertRejected(() -> fieldRule("s", "a").expireAfterSeconds(seconds).build(), "expireAfterSeconds");
    }

    @Test
    void shouldAcceptTheBoundsOfExpireAfterSeconds() {
        assertThat(fieldRule("s", "a").expireAfterSeconds(0).build().expireAfterSeconds())
                .isZero();
        assertThat(fieldRule("s", "a")
                        .expireAfterSeconds(Integer.MAX_VALUE)
                        .build()
                        .expireAfterSeconds())
                .isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void shouldRequireAFieldInFieldMode() {
        assertRejected(
                () -> new TtlRule(
                        "s",
                        NamespacePattern.parse("a.b"),
                        TtlMode.FIELD,
                        null,
                        0,
                        FieldFormat.DATE,
                        null,
                        null,
                        null,
                        null),
                "field mode needs a field");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a..b", ".a", "a.", "$a", "a.$b"})
    void shouldRejectInvalidFieldPaths(String path) {
        assertRejected(() -> fieldRule("s", path).build(), "Invalid field path '" + path + "'");
        assertRejected(() -> lastModifiedRule("s").documentTtlField(path).build(), "Invalid field path");
        assertRejected(() -> lastModifiedRule("s").modifiedField(path).build(), "Invalid field path");
    }

    @Test
    void shouldRejectSettingsOfTheOtherMode() {
        assertRejected(() -> fieldRule("s", "a").documentTtlField("ttl").build(), "need last-modified mode");
        assertRejected(() -> fieldRule("s", "a").modifiedField("updatedAt").build(), "need last-modified mode");
        assertRejected(
                () -> new TtlRule(
                        "s",
                        NamespacePattern.parse("a.b"),
                        TtlMode.LAST_MODIFIED,
                        "a",
                        0,
                        FieldFormat.DATE,
                        null,
                        null,
                        null,
                        null),
                "field mode only");
        assertRejected(
                () -> lastModifiedRule("s").format(FieldFormat.EPOCH_SECONDS).build(), "field mode only");
    }

    @Test
    void shouldRequireANonBlankName() {
        assertRejected(() -> fieldRule(" ", "a").build(), "name");
    }

    @Test
    void shouldValidateFieldPathsForConfiguration() {
        assertThat(BsonPaths.validate("session.expiresAt")).isEqualTo("session.expiresAt");
        assertRejected(() -> BsonPaths.validate("session..expiresAt"), "session..expiresAt");
    }

    @Test
    void shouldChangeShapeWithEverythingButTheOffsetAndTheName() {
        RuleBuilder base = fieldRule("s", "expireAt").expireAfterSeconds(10);
        long shape = base.build().shape();

        assertThat(fieldRule("s", "expireAt").expireAfterSeconds(99).build().shape())
                .isEqualTo(shape);
        assertThat(fieldRule("other-name", "expireAt")
                        .expireAfterSeconds(10)
                        .build()
                        .shape())
                .isEqualTo(shape);
        assertThat(fieldRule("s", "expiresAt").expireAfterSeconds(10).build().shape())
                .isNotEqualTo(shape);
        assertThat(fieldRule("s", "expireAt").namespace("app.other").build().shape())
                .isNotEqualTo(shape);
        assertThat(fieldRule("s", "expireAt")
                        .format(FieldFormat.EPOCH_SECONDS)
                        .build()
                        .shape())
                .isNotEqualTo(shape);
        assertThat(lastModifiedRule("s").build().shape())
                .isNotEqualTo(lastModifiedRule("s").modifiedField("v").build().shape())
                .isNotEqualTo(
                        lastModifiedRule("s").documentTtlField("ttl").build().shape());
        assertThat(lastModifiedRule("s").modifiedField("null").build().shape())
                .as("a field named null is not no field")
                .isNotEqualTo(lastModifiedRule("s").build().shape());
        assertThat(lastModifiedRule("s").documentTtlField("null").build().shape())
                .isNotEqualTo(lastModifiedRule("s").build().shape());
    }
}
