package io.ttlstreams.secrets;

import static org.assertj.core.api.Assertions.assertThat;

import com.mongodb.MongoCredential;
import com.mongodb.MongoSecurityException;
import java.io.IOException;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

class RedactingLogEventFactoryTest {

    private static final Logger LOG = LoggerFactory.getLogger(RedactingLogEventFactoryTest.class);

    @Test
    void shouldRedactEveryKindOfLogMessageThroughSlf4j() {
        try (LogCapture log = LogCapture.start()) {
            LOG.info("plain http://admin:s3cret-1@connect:8083");
            LOG.warn("with a parameter {}", "mongodb://app:s3cret-2@mongo:27017");
            LOG.error(
                    "with a throwable {}", "http://u:s3cret-3@h", new IOException("a failure at http://connect:8083"));

            assertThat(log.text())
                    .doesNotContain("s3cret")
                    .contains("plain http://***@connect:8083")
                    .contains("with a parameter mongodb://***@mongo:27017")
                    .contains("with a throwable http://***@h")
                    .contains("java.io.IOException: a failure at http://connect:8083");
        }
    }

    @Test
    void shouldRedactTheThrowablesOfLogEventsAndTheirCauses() {
        MongoCredential credential = MongoCredential.createCredential("ttl-reader", "admin", "pw".toCharArray());
        Exception failure = new IllegalStateException(
                "sweep failed",
                new IOException(
                        "reading mongodb://app:s3/cret@mongo:27017",
                        new MongoSecurityException(credential, "Exception authenticating " + credential)));

        try (LogCapture log = LogCapture.start()) {
            LOG.warn("alone", failure);
            LOG.warn("as the last parameter of {}", "a message", failure);

            assertThat(log.events()).isEqualTo(2);
            assertThat(log.text())
                    .doesNotContain("s3/cret")
                    .doesNotContain("ttl-reader")
                    .contains("java.lang.IllegalStateException: sweep failed")
                    .contains("Caused by: java.io.IOException: reading mongodb://***@mongo:27017")
                    .contains("Caused by: com.mongodb.MongoSecurityException: Exception authenticating"
                            + " MongoCredential{mechanism=null, userName='***'");
        }
    }

    @Test
    void shouldRedactKafkasConfigurationDump() {
        ConfigDef definition = new ConfigDef().define("url", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "");

        try (LogCapture log = LogCapture.start()) {
            new AbstractConfig(definition, Map.of("url", "http://admin:s3cret@connect:8083"), true);

            assertThat(log.text()).contains("url = http://***@connect:8083").doesNotContain("s3cret");
        }
    }
}
