package io.ttlstreams.platform;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.ttlstreams.connect.ConnectorDefinition;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The deployment as one JSON document: topics with their settings and reasons, principals with ACLs, connectors. */
public final class PlatformJson {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private PlatformJson() {}

    /** The JSON document, ending with a newline. */
    public static String render(Platform platform) {
        Map<String, Object> document = new LinkedHashMap<>();
        List<Map<String, Object>> topics = new ArrayList<>();
        for (TopicSpec topic : platform.topics().topics()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", topic.name());
            entry.put("role", topic.role().name().toLowerCase(Locale.ROOT).replace('_', '-'));
            entry.put("purpose", topic.role().purpose());
            entry.put("partitions", topic.partitions());
            entry.put("partitionsReason", topic.partitionsReason());
            topic.replicationFactor().ifPresent(factor -> entry.put("replicationFactor", factor));
            List<Map<String, Object>> settings = new ArrayList<>();
            for (TopicSetting setting : topic.settings()) {
                Map<String, Object> value = new LinkedHashMap<>();
                value.put("name", setting.name());
                value.put("value", setting.value());
                value.put("reason", setting.reason());
                if (setting.check() != TopicSetting.Check.ADVISORY) {
                    value.put("checkedAtStartup", setting.expected());
                }
                settings.add(value);
            }
            entry.put("configs", settings);
            topics.add(entry);
        }
        document.put("topics", topics);
        List<Map<String, Object>> principals = new ArrayList<>();
        for (KafkaPrincipal principal : platform.acls().principals()) {
            List<Map<String, Object>> acls = new ArrayList<>();
            for (Acl acl : principal.acls()) {
                Map<String, Object> entry = new LinkedHashMap<>();
                entry.put("resourceType", acl.resource().strimziType());
                entry.put("name", acl.name());
                entry.put("patternType", acl.prefixed() ? "prefixed" : "literal");
                entry.put("operations", acl.operations());
                entry.put("reason", acl.reason());
                acls.add(entry);
            }
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("principal", principal.principal());
            entry.put("role", principal.role());
            entry.put("acls", acls);
            principals.add(entry);
        }
        document.put("principals", principals);
        List<Map<String, Object>> connectors = new ArrayList<>();
        for (ConnectorDefinition connector : platform.connectors().files().values()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", connector.name());
            entry.put("config", connector.config());
            connectors.add(entry);
        }
        document.put("connectors", connectors);
        try {
            return JSON.writeValueAsString(document) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
