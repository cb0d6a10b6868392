package io.ttlstreams.config;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;

/**
 * Reads Java properties files the way users write them after copying an example: with trailing comments such as
 * {@code ttl.rule.sessions.namespace=app.sessions   # db.collection}, which {@link Properties} alone would keep as
 * part of the value, and with a UTF-8 byte order mark, which some editors write and {@link Properties} would make
 * part of the first key. A key given twice is an error: {@link Properties} would silently keep the last value, and
 * which of two rules applies is not something to guess.
 */
final class PropertiesFiles {

    /** The byte order mark, as the first character of the decoded text. */
    private static final char BYTE_ORDER_MARK = '\uFEFF';

    private PropertiesFiles() {}

    /**
     * The properties in {@code file} (UTF-8, with or without a byte order mark), trailing comments removed.
     *
     * @throws ConfigException naming the file when it cannot be read, or the key and both lines when a key is given
     *                         twice
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
        if (!text.isEmpty() && text.charAt(0) == BYTE_ORDER_MARK) {
            text = text.substring(1);
        }
        Map<String, String> values = new HashMap<>();
        Map<String, Integer> lineOfKey = new HashMap<>();
        for (LogicalLine line : logicalLines(text)) {
            Properties properties = new Properties();
            try {
                properties.load(new StringReader(line.text()));
            } catch (IOException | IllegalArgumentException e) {
                // StringReader does not fail; a malformed \\uXXXX escape does.
                throw new ConfigException(
                        "Cannot read configuration file " + file + ", line " + line.number() + ": " + e.getMessage());
            }
            // One logical line holds at most one entry; a blank or comment line none.
            for (String key : properties.stringPropertyNames()) {
                Integer first = lineOfKey.putIfAbsent(key, line.number());
                if (first != null) {
                    throw new ConfigException("Configuration file " + file + " sets " + key + " twice, on lines "
                            + first + " and " + line.number() + ": keep one");
                }
                values.put(key, properties.getProperty(key));
            }
        }
        return values;
    }

    /**
     * The logical lines of {@code text}, each with the number of the physical line it starts on and its physical lines
     * joined by {@code \n}, trailing comments removed. A logical line continues on the next physical line after an
     * unescaped backslash at its end, as {@link Properties} reads it.
     *
     * <p>A comment starts at a {@code #} that follows unescaped whitespace and lies outside a double-quoted JSON string,
     * so {@code color=#fff}, {@code filter={"tag": "a #1"}} and {@code secret=a\ #b} (escaped) keep their {@code #}.
     * Whole-line comments are left to {@link Properties}.
     *
     * <p>The scan follows both escape layers: a properties escape ({@code \x}) yields a literal character, and in the
     * resulting text a JSON escape inside a string keeps an escaped quote from ending it.
     */
    static List<LogicalLine> logicalLines(String text) {
        List<LogicalLine> lines = new ArrayList<>();
        StringBuilder current = null;
        int currentStart = 0;
        int number = 0;
        boolean continuation = false;
        boolean inString = false;
        boolean jsonEscape = false;
        for (String line : text.lines().toList()) {
            number++;
            String trimmed = line.stripLeading();
            if (!continuation && (trimmed.startsWith("#") || trimmed.startsWith("!"))) {
                lines.add(new LogicalLine(number, line));
                continue;
            }
            if (!continuation) {
                inString = false;
                jsonEscape = false;
                current = new StringBuilder();
                currentStart = number;
            } else {
                current.append('\n');
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
            current.append(line, 0, end);
            continuation = endsWithBackslash;
            if (!continuation) {
                lines.add(new LogicalLine(currentStart, current.toString()));
            }
        }
        if (continuation) {
            lines.add(new LogicalLine(currentStart, current.toString()));
        }
        return lines;
    }

    /**
     * One entry's worth of a properties file.
     *
     * @param number the number of the physical line it starts on, from 1
     * @param text   its physical lines joined by {@code \n}, trailing comments removed
     */
    record LogicalLine(int number, String text) {}
}
