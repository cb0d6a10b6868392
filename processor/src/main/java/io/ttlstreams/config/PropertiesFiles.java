package io.ttlstreams.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;

/**
 * Reads Java properties files the way users write them after copying an example: with trailing comments such as
 * {@code ttl.rule.sessions.namespace=app.sessions   # db.collection}, which {@link Properties} alone would keep as
 * part of the value.
 */
final class PropertiesFiles {

    private PropertiesFiles() {}

    /**
     * The properties in {@code file} (UTF-8), trailing comments removed.
     *
     * @throws ConfigException naming the file when it cannot be read
     */
    static Map<String, String> read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException("Cannot read configuration file " + file + ": it does not exist");
        } catch (AccessDeniedException e) {
            throw new ConfigException("Cannot read configuration file " + file + ": access denied");
        } catch (CharacterCodingException e) {
            throw new ConfigException("Cannot read configuration file " + file + ": it is not UTF-8 text");
        } catch (IOException e) {
            throw new ConfigException("Cannot read configuration file " + file + ": " + e);
        }
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(stripTrailingComments(text)));
        } catch (IOException | IllegalArgumentException e) {
            // StringReader does not fail; a malformed \\uXXXX escape does.
            throw new ConfigException("Cannot read configuration file " + file + ": " + e.getMessage());
        }
        Map<String, String> values = new HashMap<>();
        properties.stringPropertyNames().forEach(key -> values.put(key, properties.getProperty(key)));
        return values;
    }

    /**
     * {@code text} without trailing comments. A comment starts at a {@code #} that follows unescaped whitespace and
     * lies outside a double-quoted JSON string, so {@code color=#fff}, {@code filter={"tag": "a #1"}} and
     * {@code secret=a\ #b} (escaped) keep their {@code #}. Whole-line comments are left to {@link Properties}.
     *
     * <p>The scan follows both escape layers: a properties escape ({@code \x}) yields a literal character, and in the
     * resulting text a JSON escape inside a string keeps an escaped quote from ending it.
     */
    static String stripTrailingComments(String text) {
        StringBuilder out = new StringBuilder(text.length());
        boolean continuation = false;
        boolean inString = false;
        boolean jsonEscape = false;
        for (String line : text.lines().toList()) {
            String trimmed = line.stripLeading();
            if (!continuation && (trimmed.startsWith("#") || trimmed.startsWith("!"))) {
                out.append(line).append('\n');
                continue;
            }
            if (!continuation) {
                inString = false;
                jsonEscape = false;
            }
            int end = line.length();
            int whitespaceStart = -1;
            boolean endsWithBackslash = false;
            for (int i = 0; i < line.length(); i++) {
                char c = line.charAt(i);
                boolean escaped = c == '\\';
                if (escaped) {
                    if (i + 1 == line.length()) {
                        endsWithBackslash = true;
                        break;
                    }
                    c = line.charAt(++i);
                }
                if (inString) {
                    if (jsonEscape) {
                        jsonEscape = false;
                    } else if (c == '\\') {
                        jsonEscape = true;
                    } else if (c == '"') {
                        inString = false;
                    }
                } else if (c == '"') {
                    inString = true;
                } else if (c == '#' && !escaped && whitespaceStart >= 0) {
                    end = whitespaceStart;
                    endsWithBackslash = false;
                    break;
                }
                whitespaceStart =
                        !escaped && Character.isWhitespace(c) ? (whitespaceStart >= 0 ? whitespaceStart : i) : -1;
            }
            out.append(line, 0, end).append('\n');
            continuation = endsWithBackslash;
        }
        return out.toString();
    }
}
