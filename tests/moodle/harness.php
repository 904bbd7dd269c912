<?php
// derive's test harness around Moodle's own import and grading code (GPL, never copied
// here): MOODLE_DIR names a Moodle source tree; this file stubs the few globals Moodle's
// files reach for (strings, config, the database-free question bank), then runs, unchanged:
//   lib/xmlize.php                               the XML reader every Moodle XML import uses
//   question/format/xml/format.php               qformat_xml: import_numerical, import_multianswer,
//                                                import_category, import_headers, import_answer
//   question/type/multianswer/questiontype.php   qtype_multianswer_extract_question (the cloze
//                                                parser) and qtype_multianswer_validate_question
//   question/type/numerical/questiontype.php     qtype_numerical::is_valid_number
//   question/type/numerical/question.php         qtype_numerical_answer::within_tolerance
//
// Usage: php harness.php FILE.xml RESPONSES.json
// RESPONSES.json: {"<idnumber or name>": [[part, "typed response"], ...], ...} (part 1 for a
// numerical question; the key "*" for every question: Moodle 4.1 keeps no ID number of a cloze
// question). Prints JSON: every imported question (type, name, idnumber, category, parts with
// their answers as Moodle stored them) and, for each response, the first answer whose
// tolerance interval holds it (Moodle's rule), its fraction and feedback.

if ($argc < 3) {
    fwrite(STDERR, "usage: php harness.php FILE.xml RESPONSES.json\n");
    exit(2);
}
$moodle = getenv('MOODLE_DIR');
if (!$moodle || !is_file("$moodle/question/format/xml/format.php")) {
    fwrite(STDERR, "MOODLE_DIR must name a Moodle source tree\n");
    exit(2);
}

define('MOODLE_INTERNAL', true);
define('FORMAT_MOODLE', 0);
define('FORMAT_HTML', 1);
define('FORMAT_PLAIN', 2);
define('FORMAT_WIKI', 3);
define('FORMAT_MARKDOWN', 4);
define('PARAM_TEXT', 'text');
define('DEBUG_DEVELOPER', 32767);

// The files Moodle's files require_once, as stubs (the real ones need a database).
$stubs = sys_get_temp_dir() . '/derive-moodle-stubs-' . getmypid();
$files = [
    'lib/xmlize.php' => "<?php require_once(" . var_export("$moodle/lib/xmlize.php", true) . ");",
    'lib/questionlib.php' => "<?php",
    'question/type/questiontypebase.php' => "<?php class question_type {}",
    'question/type/questionbase.php' => "<?php
        abstract class question_graded_automatically {}
        class question_answer {
            public \$id; public \$answer; public \$fraction; public \$feedback;
            public \$feedbackformat;
            public function __construct(\$id, \$answer, \$fraction, \$feedback, \$feedbackformat) {
                \$this->id = \$id; \$this->answer = \$answer; \$this->fraction = \$fraction;
                \$this->feedback = \$feedback; \$this->feedbackformat = \$feedbackformat;
            }
        }",
    'question/type/multichoice/question.php' => "<?php class qtype_multichoice_base {
        const LAYOUT_DROPDOWN = 0; const LAYOUT_VERTICAL = 1; const LAYOUT_HORIZONTAL = 2; }",
    'question/type/numerical/question.php' =>
        "<?php require_once(" . var_export("$moodle/question/type/numerical/question.php", true) . ");",
    'question/type/numerical/questiontype.php' =>
        "<?php require_once(" . var_export("$moodle/question/type/numerical/questiontype.php", true) . ");",
];
foreach ($files as $path => $text) {
    @mkdir(dirname("$stubs/$path"), 0777, true);
    file_put_contents("$stubs/$path", $text);
}
register_shutdown_function(function () use ($stubs) {
    exec('rm -rf ' . escapeshellarg($stubs));
});

$CFG = new stdClass();
$CFG->libdir = "$stubs/lib";
$CFG->dirroot = $stubs;
$USER = new stdClass();
$USER->id = 2;

$ERRORS = [];
function get_string($id, $component = '', $a = null) {
    return "[$component:$id]" . ($a === null ? '' : ' ' . (is_scalar($a) ? $a : json_encode($a)));
}
function get_config($plugin, $name = null) { return 0; }
function clean_param($value, $type) { return strip_tags($value); }
function debugging($message = '', $level = 0) { global $ERRORS; $ERRORS[] = "debugging: $message"; }
function fullclone($thing) { return unserialize(serialize($thing)); }
function file_get_unused_draft_itemid() { return 1; }
function shorten_text($text, $length) { return mb_substr($text, 0, $length); }
class core_text { public static function strlen($s) { return mb_strlen($s); } }
class core_tag_tag { public static function is_enabled($c, $i) { return false; } }
class question_bank { public static function get_qtype($name) { return null; } }
class coding_exception extends Exception {}
class moodle_exception extends Exception {}

class qformat_default {
    public function error($message, $text = '', $questionname = '') {
        global $ERRORS;
        $ERRORS[] = "error: $message";
    }
    protected function defaultquestion() {
        $q = new stdClass();
        $q->defaultmark = 1;
        $q->questiontextformat = FORMAT_MOODLE;
        $q->generalfeedback = '';
        $q->generalfeedbackformat = FORMAT_MOODLE;
        $q->penalty = 0.3333333;
        $q->length = 1;
        return $q;
    }
    public function clean_question_name($name) {
        $name = trim(clean_param($name, PARAM_TEXT));
        return core_text::strlen($name) > 255 ? shorten_text($name, 251) : $name;
    }
    public function create_default_question_name($text, $default) { return $default; }
    protected function add_blank_combined_feedback($q) { return $q; }
    public function try_importing_using_qtypes($data, $question = null, $extra = null, $qtype = '') {
        return false;
    }
}

require_once("$moodle/lib/xmlize.php");
require_once("$moodle/question/format/xml/format.php");
require_once("$moodle/question/type/multianswer/questiontype.php");

class derive_qformat_xml extends qformat_xml {
    public function read($text) { return $this->readquestions([$text]); }
}

function answers_of($q) {
    // A numerical question's (or a cloze sub-question's) answers as Moodle's question engine
    // makes them: qtype_numerical_answer objects, in the file's order.
    $out = [];
    foreach (array_values($q->answer) as $i => $text) {
        $feedback = $q->feedback[$i];
        $feedback = is_array($feedback) ? $feedback['text'] : $feedback;
        $a = new qtype_numerical_answer($i, is_array($text) ? $text['text'] : $text,
                                        $q->fraction[$i], $feedback, FORMAT_HTML,
                                        $q->tolerance[$i] ?? 0);
        $out[] = $a;
    }
    return $out;
}

function grade($answers, $typed) {
    // qtype_numerical_question::get_matching_answer without units: the first answer whose
    // interval holds the number (the response read as Moodle's answer processor reads it).
    $ap = new qtype_numerical_answer_processor([]);
    list($value, $unit) = $ap->apply_units($typed);
    if ($value === null) {
        return ['matched' => null, 'fraction' => 0, 'feedback' => '', 'value' => null];
    }
    foreach ($answers as $k => $a) {
        if ($a->within_tolerance($value)) {
            return ['matched' => $k, 'fraction' => (float)$a->fraction, 'feedback' => $a->feedback,
                    'value' => $value];
        }
    }
    return ['matched' => null, 'fraction' => 0, 'feedback' => '', 'value' => $value];
}

$format = new derive_qformat_xml();
$questions = $format->read(file_get_contents($argv[1]));
$responses = json_decode(file_get_contents($argv[2]), true) ?: [];
$out = [];
$category = null;
foreach ($questions ?: [] as $q) {
    if ($q->qtype === 'category') {
        $category = $q->category;
        $out[] = ['type' => 'category', 'category' => $q->category];
        continue;
    }
    $parts = [];
    if ($q->qtype === 'numerical') {
        $parts[1] = answers_of($q);
    } else {
        foreach ($q->options->questions as $key => $sub) {
            $parts[$key] = answers_of($sub);
        }
    }
    $shown = [];
    foreach ($parts as $key => $answers) {
        $shown[$key] = array_map(function ($a) {
            list($lo, $hi) = $a->get_tolerance_interval();
            return ['answer' => $a->answer, 'tolerance' => $a->tolerance,
                    'fraction' => (float)$a->fraction, 'feedback' => $a->feedback,
                    'min' => $lo, 'max' => $hi];
        }, $answers);
    }
    $graded = [];
    $idnumber = $q->idnumber ?? null;
    foreach ($responses[$idnumber ?? $q->name] ?? $responses['*'] ?? [] as $r) {
        list($part, $typed) = $r;
        $graded[] = ['part' => $part, 'typed' => $typed] +
                    (isset($parts[$part]) ? grade($parts[$part], $typed) : ['missing' => true]);
    }
    $text = is_array($q->questiontext) ? $q->questiontext['text'] : $q->questiontext;
    $out[] = ['type' => $q->qtype, 'name' => $q->name, 'idnumber' => $idnumber,
              'category' => $category, 'questiontext' => $text,
              'defaultmark' => (float)$q->defaultmark, 'parts' => $shown, 'graded' => $graded];
}
echo json_encode(['questions' => $out, 'errors' => $ERRORS], JSON_UNESCAPED_UNICODE), "\n";
