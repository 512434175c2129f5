package io.github.redislock.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Every relative link of the README and of {@code docs/} leads somewhere: to a file of the repository
 * and, with a {@code #fragment}, to a heading of that file as GitHub names its anchors. The manual is
 * split over several files, and a section moved or renamed must not leave a dead link behind.
 */
class DocumentationLinksTest {

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6} (.+)$");

    @Test
    void everyRelativeLinkOfTheManualLeadsToAFileAndAHeadingThatExist() throws IOException {
        List<String> dead = new ArrayList<>();
        int checked = 0;
        for (Manual.Page page : Manual.pages()) {
            Matcher link = LINK.matcher(page.prose());
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http(s) and mailto links are not the build's to check
                }
                checked++;
                String problem = problem(page.path(), target);
                if (problem != null) {
                    dead.add(page.name() + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(checked).as("relative links found").isGreaterThan(10);
        assertThat(dead).as("dead links").isEmpty();
    }

    private static String problem(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!Files.exists(linked)) {
            return "no such file";
        }
        if (hash < 0) {
            return null;
        }
        if (!linked.toString().endsWith(".md")) {
            return "an anchor into a file that is not Markdown";
        }
        return anchors(linked).contains(target.substring(hash + 1)) ? null : "no such heading";
    }

    /** The anchors GitHub gives a Markdown file's headings: lower case, punctuation dropped, spaces as hyphens. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        Manual.Page page = new Manual.Page(markdown, Files.readAllLines(markdown, StandardCharsets.UTF_8));
        for (String line : page.prose().split("\n")) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                anchors.add(heading.group(1).trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }
}
