// A realistic tool library for measuring retrieval (issue 31): the kind of tools an agent writes for itself, across
// many domains, with near-duplicates and distractors on purpose (celsius_to_fahrenheit beside fahrenheit_to_celsius
// and the kelvin ones, several hashes, several date tools), so that recall means something. Pure data: the test and
// the benchmark store it with saveToolVersion once their database is named.
import type { NewToolVersion } from "@/lib/db/queries/tools";

export interface CorpusTool {
  name: string;
  description: string;
  parametersSchema: {
    type: "object";
    properties: Record<string, { type: string; description?: string }>;
    required: string[];
  };
  code: string;
}

/**
 * One tool from a compact form. `parameters`: `name:type[:description]` separated by `|`, a `?` after the name
 * making it optional. `body`: the body of `run(inputs)`; by default it echoes what it was given.
 */
function tool(name: string, description: string, parameters: string, body?: string): CorpusTool {
  const properties: CorpusTool["parametersSchema"]["properties"] = {};
  const required: string[] = [];
  for (const spec of parameters.split("|")) {
    const [rawName, type, ...described] = spec.split(":");
    const optional = rawName.endsWith("?");
    const parameter = optional ? rawName.slice(0, -1) : rawName;
    properties[parameter] = described.length ? { type, description: described.join(":") } : { type };
    if (!optional) required.push(parameter);
  }
  const code = `function run(inputs) {\n  ${body ?? `return { tool: "${name}", received: inputs };`}\n}`;
  return { name, description, parametersSchema: { type: "object", properties, required }, code };
}

const UNITS = [
  tool(
    "celsius_to_fahrenheit",
    "Converts a temperature from degrees Celsius to degrees Fahrenheit.",
    "celsius:number:temperature in °C",
    "return { fahrenheit: inputs.celsius * 9 / 5 + 32 };",
  ),
  tool(
    "fahrenheit_to_celsius",
    "Converts a temperature given in degrees Fahrenheit into degrees Celsius.",
    "fahrenheit:number:temperature in °F",
    "return { celsius: (inputs.fahrenheit - 32) * 5 / 9 };",
  ),
  tool(
    "kelvin_to_celsius",
    "Convert an absolute temperature in kelvin to degrees Celsius.",
    "kelvin:number",
    "return { celsius: inputs.kelvin - 273.15 };",
  ),
  tool(
    "celsius_to_kelvin",
    "Convert degrees Celsius to kelvin (absolute temperature scale).",
    "celsius:number",
    "return { kelvin: inputs.celsius + 273.15 };",
  ),
  tool(
    "fahrenheit_to_kelvin",
    "Convert a Fahrenheit temperature to kelvin.",
    "fahrenheit:number",
    "return { kelvin: (inputs.fahrenheit - 32) * 5 / 9 + 273.15 };",
  ),
  tool(
    "convert_length",
    "Convert a length or distance between metric and imperial units: mm, cm, m, km, in, ft, yd and mi.",
    "value:number|from_unit:string:one of mm, cm, m, km, in, ft, yd, mi|to_unit:string",
  ),
  tool(
    "convert_weight",
    "Convert a mass between kilograms, grams, pounds, ounces and stone.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_volume",
    "Converts liquid volume between liters, milliliters, US gallons, imperial gallons and fluid ounces.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_area",
    "Convert an area between square meters, square feet, acres, hectares and square kilometers.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_speed",
    "Convert a speed between km/h, mph, meters per second and knots.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_pressure",
    "Convert pressure readings between pascals, kilopascals, bar, psi, atmospheres and mmHg.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_energy",
    "Convert energy between joules, kilojoules, kilocalories, kilowatt-hours and BTU.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_data_size",
    "Convert a digital storage size between bytes, KB, MB, GB, TB and their binary forms KiB, MiB, GiB, TiB.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "miles_to_kilometers",
    "Convert a distance in miles into kilometers.",
    "miles:number",
    "return { kilometers: inputs.miles * 1.609344 };",
  ),
  tool(
    "kilometers_to_miles",
    "Convert kilometers to miles.",
    "kilometers:number",
    "return { miles: inputs.kilometers / 1.609344 };",
  ),
  tool(
    "pounds_to_kilograms",
    "Convert a weight in pounds (lb) to kilograms.",
    "pounds:number",
    "return { kilograms: inputs.pounds * 0.45359237 };",
  ),
  tool(
    "inches_to_centimeters",
    "Convert inches to centimeters.",
    "inches:number",
    "return { centimeters: inputs.inches * 2.54 };",
  ),
  tool(
    "height_feet_inches_to_meters",
    "Convert a person's height given in feet and inches to meters and centimeters.",
    "feet:integer|inches?:number",
    "return { meters: (inputs.feet * 12 + (inputs.inches || 0)) * 0.0254 };",
  ),
  tool(
    "convert_shoe_size",
    "Convert a shoe size between the EU, US and UK sizing systems, for men or women.",
    "size:number|from_system:string:EU, US or UK|to_system:string|gender?:string:men or women",
  ),
  tool(
    "convert_fuel_economy",
    "Convert fuel consumption between miles per gallon (US or imperial) and liters per 100 km.",
    "value:number|from_unit:string:mpg_us, mpg_uk or l_per_100km|to_unit:string",
  ),
  tool(
    "convert_angle",
    "Convert an angle between degrees, radians and gradians.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_power",
    "Convert power between watts, kilowatts, mechanical horsepower and metric horsepower.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_torque",
    "Convert torque between newton-meters, pound-feet and kilogram-force meters.",
    "value:number|from_unit:string|to_unit:string",
  ),
  tool(
    "convert_density",
    "Convert density values between kg/m³, g/cm³ and lb/ft³.",
    "value:number|from_unit:string|to_unit:string",
  ),
];

const TEXT = [
  tool(
    "word_count",
    "Counts the words, characters (with and without spaces), sentences and lines in a piece of text.",
    "text:string",
    "const words = inputs.text.trim().split(/\\s+/).filter(Boolean); return { words: words.length, characters: inputs.text.length };",
  ),
  tool(
    "character_frequency",
    "Returns how often each character appears in a string, sorted from most to least frequent.",
    "text:string|ignore_case?:boolean",
  ),
  tool(
    "reverse_string",
    "Reverse the order of the characters in a string (Unicode-aware).",
    "text:string",
    "return Array.from(inputs.text).reverse().join('');",
  ),
  tool(
    "to_title_case",
    "Capitalize the first letter of each significant word in a headline, keeping small words like 'of' and 'the' lowercase.",
    "text:string",
  ),
  tool(
    "to_snake_case",
    "Convert an identifier or phrase to snake_case (lowercase words joined by underscores).",
    "text:string",
  ),
  tool(
    "to_camel_case",
    "Convert a phrase or snake_case identifier into camelCase or PascalCase.",
    "text:string|pascal?:boolean",
  ),
  tool(
    "slugify_text",
    "Turn a title into a URL-friendly slug: lowercase, accents removed, words joined by hyphens.",
    "title:string",
    "return inputs.title.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');",
  ),
  tool(
    "truncate_text",
    "Shorten a text to a maximum length at a word boundary and add an ellipsis.",
    "text:string|max_length:integer|suffix?:string",
  ),
  tool(
    "collapse_whitespace",
    "Trim a string and collapse runs of spaces, tabs and newlines into single spaces.",
    "text:string",
    "return inputs.text.replace(/\\s+/g, ' ').trim();",
  ),
  tool(
    "regex_replace",
    "Find every match of a regular expression in a text and replace it with a replacement string (supports $1 groups).",
    "text:string|pattern:string|replacement:string|flags?:string",
  ),
  tool(
    "extract_emails",
    "Pull every email address out of a block of text, deduplicated.",
    "text:string",
    "return Array.from(new Set(inputs.text.match(/[\\w.+-]+@[\\w-]+\\.[\\w.-]+/g) || []));",
  ),
  tool(
    "extract_urls",
    "Find all http and https links in a text and return them as a list.",
    "text:string",
    "return inputs.text.match(/https?:\\/\\/[^\\s)]+/g) || [];",
  ),
  tool("extract_hashtags_mentions", "Extract #hashtags and @mentions from a social media post.", "post:string"),
  tool(
    "is_palindrome",
    "Check whether a word or sentence reads the same backwards, ignoring punctuation, spaces and case.",
    "text:string",
    "const s = inputs.text.toLowerCase().replace(/[^a-z0-9]/g, ''); return s === s.split('').reverse().join('');",
  ),
  tool(
    "are_anagrams",
    "Check if two words or phrases are anagrams of each other (same letters rearranged).",
    "first:string|second:string",
  ),
  tool(
    "levenshtein_distance",
    "Compute the edit distance between two strings: the minimum number of insertions, deletions and substitutions.",
    "a:string|b:string",
  ),
  tool(
    "jaccard_text_similarity",
    "Score how similar two texts are by the overlap of their word sets (Jaccard index between 0 and 1).",
    "first:string|second:string",
  ),
  tool("count_syllables", "Estimate the number of syllables in an English word or sentence.", "text:string"),
  tool(
    "flesch_reading_ease",
    "Compute the Flesch reading-ease score and Flesch-Kincaid grade level of English prose.",
    "text:string",
  ),
  tool("pig_latin", "Translate an English sentence into Pig Latin.", "sentence:string"),
  tool(
    "lorem_ipsum",
    "Generate placeholder lorem ipsum text with a given number of paragraphs or words.",
    "paragraphs?:integer|words?:integer",
  ),
  tool(
    "wrap_text",
    "Hard-wrap text so that no line is longer than a given width, breaking between words.",
    "text:string|width:integer",
  ),
  tool(
    "strip_html_tags",
    "Remove all HTML tags from markup and return plain text with entities decoded.",
    "html:string",
    "return inputs.html.replace(/<[^>]*>/g, '');",
  ),
  tool(
    "extract_keywords",
    "Find the most frequent meaningful words in a document, skipping English stop words.",
    "text:string|top_n?:integer",
  ),
  tool(
    "split_sentences",
    "Split a paragraph into individual sentences, handling abbreviations like 'Dr.' and 'e.g.'.",
    "text:string",
  ),
  tool(
    "pluralize_word",
    "Return the English plural form of a noun (child → children, city → cities).",
    "word:string|count?:integer",
  ),
  tool("morse_encode", "Translate text into International Morse code using dots and dashes.", "text:string"),
  tool("morse_decode", "Decode Morse code (dots, dashes, spaces and slashes) back into plain text.", "code:string"),
  tool(
    "nato_phonetic_spelling",
    "Spell out a word letter by letter using the NATO phonetic alphabet (Alfa, Bravo, Charlie...).",
    "text:string",
  ),
  tool(
    "number_to_words",
    "Write out an integer in English words, e.g. 1234 → 'one thousand two hundred thirty-four'.",
    "number:integer",
  ),
  tool(
    "line_diff",
    "Compare two versions of a text line by line and show which lines were added, removed or unchanged.",
    "old_text:string|new_text:string",
  ),
  tool(
    "sort_lines",
    "Sort the lines of a text alphabetically or numerically, optionally removing duplicates.",
    "text:string|numeric?:boolean|unique?:boolean",
  ),
  tool("count_vowels_consonants", "Count the vowels and consonants in a string.", "text:string"),
  tool(
    "mask_sensitive_text",
    "Redact email addresses, phone numbers and card numbers in a text with asterisks.",
    "text:string",
  ),
  tool(
    "sentiment_score",
    "Rough lexicon-based sentiment of a sentence or review: positive, negative or neutral with a score from -1 to 1.",
    "text:string",
  ),
];

const DATES = [
  tool(
    "days_between_dates",
    "Count the number of calendar days between two dates (YYYY-MM-DD).",
    "start_date:string|end_date:string",
    "return { days: Math.round((Date.parse(inputs.end_date) - Date.parse(inputs.start_date)) / 86400000) };",
  ),
  tool(
    "add_days_to_date",
    "Add or subtract a number of days, weeks or months to a date and return the resulting date.",
    "date:string|amount:integer|unit?:string:days, weeks or months",
  ),
  tool(
    "day_of_week",
    "Tell which weekday (Monday…Sunday) a given date falls on.",
    "date:string:YYYY-MM-DD",
    "return ['Sunday','Monday','Tuesday','Wednesday','Thursday','Friday','Saturday'][new Date(inputs.date + 'T00:00:00Z').getUTCDay()];",
  ),
  tool(
    "convert_timezone",
    "Convert a date and time from one IANA time zone to another, e.g. America/New_York to Asia/Tokyo.",
    "datetime:string|from_zone:string|to_zone:string",
  ),
  tool(
    "current_time_in_zone",
    "Return the current local time and UTC offset in a given IANA time zone.",
    "zone:string:e.g. Europe/Paris",
  ),
  tool(
    "unix_timestamp_to_date",
    "Turn a Unix epoch timestamp (seconds or milliseconds) into a human-readable ISO 8601 date.",
    "timestamp:number|zone?:string",
  ),
  tool(
    "date_to_unix_timestamp",
    "Convert an ISO date-time string into seconds since the Unix epoch.",
    "datetime:string",
    "return Math.floor(Date.parse(inputs.datetime) / 1000);",
  ),
  tool("iso_week_number", "Get the ISO-8601 week number and week-year of a date.", "date:string"),
  tool(
    "is_leap_year",
    "Check whether a year is a leap year in the Gregorian calendar.",
    "year:integer",
    "const y = inputs.year; return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;",
  ),
  tool(
    "age_from_birthdate",
    "Calculate someone's exact age in years, months and days from their date of birth.",
    "birthdate:string|on_date?:string",
  ),
  tool(
    "countdown_to_date",
    "How many days, hours and minutes remain from now until a future date or event; recurring yearly dates roll over to next year.",
    "target_date:string|yearly?:boolean",
  ),
  tool(
    "business_days_between",
    "Count working days between two dates, excluding Saturdays, Sundays and an optional list of holidays.",
    "start_date:string|end_date:string|holidays?:array",
  ),
  tool(
    "add_business_days",
    "Add a number of working days to a date, skipping weekends and holidays, e.g. for delivery or due dates.",
    "date:string|days:integer|holidays?:array",
  ),
  tool(
    "format_date",
    "Format a date with a pattern such as 'dd/MM/yyyy' or 'MMMM d, yyyy', in a given locale.",
    "date:string|pattern:string|locale?:string",
  ),
  tool(
    "parse_relative_date",
    "Resolve a relative date expression like 'next Friday', 'in 3 weeks' or 'last day of the month' to an absolute date.",
    "expression:string|reference_date?:string",
  ),
  tool(
    "quarter_of_year",
    "Return the calendar or fiscal quarter a date belongs to.",
    "date:string|fiscal_year_start_month?:integer",
  ),
  tool(
    "time_between_clock_times",
    "Compute the hours and minutes between two clock times on the same day or across midnight.",
    "start_time:string:HH:MM|end_time:string:HH:MM",
  ),
  tool(
    "format_duration",
    "Format a number of seconds as a readable duration such as '2 h 05 min 09 s'.",
    "seconds:number",
  ),
  tool(
    "parse_duration",
    "Parse a duration string like '1h30m', 'PT45M' or '2 days 4 hours' into a total number of seconds.",
    "duration:string",
  ),
  tool(
    "world_clock",
    "Show the current time in several cities around the world at once.",
    "cities:array:city names or IANA zones",
  ),
  tool(
    "meeting_time_finder",
    "Find hours that fall inside everyone's working day when participants are in different time zones.",
    "zones:array|work_start?:string|work_end?:string",
  ),
  tool(
    "sunrise_sunset",
    "Compute sunrise, sunset and day length for a latitude, longitude and date.",
    "latitude:number|longitude:number|date:string",
  ),
  tool("julian_day_number", "Convert a Gregorian calendar date to its Julian Day Number, and back.", "date:string"),
  tool(
    "moon_phase",
    "Tell the phase of the moon (new, waxing crescent, full...) and its illumination on a date.",
    "date:string",
  ),
  tool(
    "cron_next_runs",
    "List the next N times a cron expression will fire, starting from a given time.",
    "expression:string|count?:integer|from?:string",
  ),
  tool(
    "cron_explain",
    "Describe a cron schedule expression in plain English (e.g. '*/15 9-17 * * 1-5').",
    "expression:string",
  ),
  tool(
    "date_range_overlap",
    "Check whether two date ranges overlap and return the overlapping period and its length.",
    "first_start:string|first_end:string|second_start:string|second_end:string",
  ),
  tool("week_dates", "List the seven dates (Monday to Sunday) of the week that contains a given date.", "date:string"),
];

const CALENDAR = [
  tool(
    "month_calendar",
    "Render a month as a text grid calendar, weeks starting on Monday or Sunday.",
    "year:integer|month:integer|week_starts_on?:string",
  ),
  tool("easter_date", "Compute the date of Western (Gregorian) Easter Sunday for a year.", "year:integer"),
  tool(
    "nth_weekday_of_month",
    "Find the date of the nth given weekday in a month, e.g. the 4th Thursday of November or the last Monday of May.",
    "year:integer|month:integer|weekday:string|n:integer:1-5, or -1 for the last",
  ),
  tool(
    "days_in_month",
    "Return how many days a given month of a given year has.",
    "year:integer|month:integer",
    "return new Date(Date.UTC(inputs.year, inputs.month, 0)).getUTCDate();",
  ),
  tool(
    "recurring_event_dates",
    "Expand a recurring event (daily, weekly on given weekdays, monthly) into its list of dates between two dates.",
    "start_date:string|end_date:string|frequency:string|weekdays?:array",
  ),
  tool(
    "build_ics_event",
    "Create an iCalendar (.ics) VEVENT text for a meeting with title, start, end, location and description.",
    "title:string|start:string|end:string|location?:string",
  ),
  tool("chinese_zodiac", "Give the Chinese zodiac animal and element for a birth year.", "year:integer"),
  tool(
    "western_zodiac_sign",
    "Return the astrological star sign for a birthday (day and month).",
    "month:integer|day:integer",
  ),
];

const FINANCE = [
  tool(
    "compound_interest",
    "Calculate the future value of a deposit with compound interest, given an annual rate, compounding frequency and years.",
    "principal:number|annual_rate:number:percent|years:number|compounds_per_year?:integer",
  ),
  tool(
    "simple_interest",
    "Calculate simple (non-compounding) interest and the total repaid on a principal.",
    "principal:number|annual_rate:number|years:number",
  ),
  tool(
    "loan_monthly_payment",
    "Compute the fixed monthly installment of an amortizing loan from the amount borrowed, annual interest rate and term.",
    "amount:number|annual_rate:number:percent|term_months:integer",
  ),
  tool(
    "amortization_schedule",
    "Produce a month-by-month amortization table showing interest, principal and remaining balance of a loan.",
    "amount:number|annual_rate:number|term_months:integer",
  ),
  tool(
    "mortgage_affordability",
    "Estimate the maximum house price someone can afford from income, debts, down payment and mortgage rate.",
    "annual_income:number|monthly_debts:number|down_payment:number|annual_rate:number",
  ),
  tool(
    "net_present_value",
    "Compute the NPV of a series of cash flows at a discount rate.",
    "rate:number:discount rate in percent|cash_flows:array",
  ),
  tool(
    "internal_rate_of_return",
    "Find the IRR of a series of periodic cash flows (first one usually negative) by Newton's method.",
    "cash_flows:array",
  ),
  tool(
    "return_on_investment",
    "Compute ROI as a percentage from the amount invested and the final value or gain.",
    "invested:number|final_value:number",
  ),
  tool(
    "percent_change",
    "Percentage increase or decrease from an old value to a new value.",
    "old_value:number|new_value:number",
    "return { percent: (inputs.new_value - inputs.old_value) / Math.abs(inputs.old_value) * 100 };",
  ),
  tool(
    "markup_margin",
    "Given cost and selling price, compute gross margin and markup percentages (or the price for a target margin).",
    "cost:number|price?:number|target_margin?:number",
  ),
  tool(
    "sales_tax",
    "Add US sales tax at a given rate to a pre-tax amount and show the tax and total.",
    "amount:number|rate:number:percent",
  ),
  tool(
    "vat_calculator",
    "Add VAT to a net price or extract the VAT from a gross price at a given rate.",
    "amount:number|rate:number|amount_includes_vat?:boolean",
  ),
  tool(
    "tip_calculator",
    "Work out the tip for a restaurant bill and split the total between a number of people.",
    "bill:number|tip_percent:number|people?:integer",
  ),
  tool(
    "settle_shared_expenses",
    "Given who paid what in a group, compute the minimal set of transfers so everyone has paid an equal share.",
    "payments:array:objects with person and amount",
  ),
  tool(
    "currency_convert",
    "Convert an amount of money between two currencies at today's exchange rate, fetched from a public rates API.",
    "amount:number|from_currency:string:ISO 4217 code|to_currency:string",
  ),
  tool(
    "inflation_adjust",
    "Adjust a historical price for inflation using US CPI, giving its equivalent value in a later year.",
    "amount:number|from_year:integer|to_year:integer",
  ),
  tool(
    "break_even_point",
    "Compute how many units must be sold to cover fixed costs given unit price and variable cost per unit.",
    "fixed_costs:number|unit_price:number|variable_cost:number",
  ),
  tool(
    "straight_line_depreciation",
    "Yearly depreciation schedule of an asset using the straight-line method, from cost, salvage value and useful life.",
    "cost:number|salvage_value:number|useful_life_years:integer",
  ),
  tool(
    "savings_goal_plan",
    "How much to put aside each month to reach a savings target by a deadline, with optional interest.",
    "target:number|months:integer|current_savings?:number|annual_rate?:number",
  ),
  tool(
    "credit_card_payoff",
    "Estimate how many months it takes to pay off a credit card balance at a fixed monthly payment and APR, and the total interest.",
    "balance:number|apr:number|monthly_payment:number",
  ),
  tool(
    "stock_trade_profit",
    "Profit or loss of a stock trade from buy price, sell price, number of shares and commissions.",
    "buy_price:number|sell_price:number|shares:number|fees?:number",
  ),
  tool(
    "dividend_yield",
    "Dividend yield of a stock from its annual dividend per share and share price.",
    "annual_dividend:number|share_price:number",
  ),
  tool(
    "cagr",
    "Compound annual growth rate between a beginning value and an ending value over a number of years.",
    "begin_value:number|end_value:number|years:number",
  ),
  tool(
    "unit_price_compare",
    "Compare products by price per unit (per kg, per liter, per item) to find the best deal.",
    "items:array:objects with name, price, quantity and unit",
  ),
  tool(
    "discount_price",
    "Apply a percentage discount (and optionally a second stacked one) to a price and show the savings.",
    "price:number|discount_percent:number|extra_discount_percent?:number",
  ),
  tool(
    "hourly_to_annual_salary",
    "Convert an hourly wage into weekly, monthly and yearly pay, or a yearly salary back to an hourly rate.",
    "amount:number|period:string:hour or year|hours_per_week?:number",
  ),
  tool(
    "income_tax_estimate",
    "Estimate income tax owed using progressive brackets supplied as a list of thresholds and rates.",
    "income:number|brackets:array",
  ),
  tool(
    "invoice_total",
    "Sum invoice line items (quantity × unit price), apply a discount and tax, and return subtotal, tax and total.",
    "items:array|tax_rate?:number|discount?:number",
  ),
  tool(
    "rule_of_72",
    "Estimate how many years it takes an investment to double at a given annual return.",
    "annual_rate:number",
    "return { years: 72 / inputs.annual_rate };",
  ),
  tool(
    "budget_503020",
    "Split a monthly take-home income into needs, wants and savings using the 50/30/20 budgeting rule.",
    "monthly_income:number",
  ),
  tool(
    "retirement_savings_projection",
    "Project the balance of a retirement account at retirement age from current savings, yearly contributions and expected return.",
    "years_to_retirement:integer|current_balance:number|yearly_contribution:number|annual_return?:number",
  ),
];

const MATHS = [
  tool(
    "descriptive_statistics",
    "Summary statistics for a list of numbers: count, mean, median, mode, min, max and range.",
    "numbers:array",
  ),
  tool(
    "standard_deviation",
    "Compute the variance and standard deviation (population or sample) of a list of numbers.",
    "numbers:array|sample?:boolean",
  ),
  tool(
    "percentile",
    "Return the value at a given percentile (e.g. 90th) of a dataset, with linear interpolation.",
    "numbers:array|p:number",
  ),
  tool(
    "linear_regression",
    "Fit a least-squares line y = a·x + b through paired data points and report slope, intercept and R².",
    "x:array|y:array",
  ),
  tool(
    "pearson_correlation",
    "Compute the Pearson correlation coefficient between two equally long numeric series.",
    "x:array|y:array",
  ),
  tool(
    "z_score",
    "Standardize a value: how many standard deviations it lies from the mean.",
    "value:number|mean:number|std_dev:number",
  ),
  tool(
    "factorial",
    "Compute n! exactly for non-negative integers using big integers.",
    "n:integer",
    "let r = 1n; for (let i = 2n; i <= BigInt(inputs.n); i++) r *= i; return r.toString();",
  ),
  tool(
    "binomial_coefficient",
    "Number of ways to choose k items from n without regard to order (n choose k, combinations).",
    "n:integer|k:integer",
  ),
  tool("permutations_count", "Number of ordered arrangements of k items chosen from n (nPk).", "n:integer|k:integer"),
  tool(
    "is_prime",
    "Test whether an integer is a prime number.",
    "n:integer",
    "const n = inputs.n; if (n < 2) return false; for (let i = 2; i * i <= n; i++) if (n % i === 0) return false; return true;",
  ),
  tool("prime_factorization", "Decompose a positive integer into its prime factors with exponents.", "n:integer"),
  tool("gcd_lcm", "Greatest common divisor and least common multiple of two or more integers.", "numbers:array"),
  tool("fibonacci_sequence", "Generate the first n Fibonacci numbers.", "n:integer"),
  tool(
    "solve_quadratic",
    "Find the real or complex roots of a quadratic equation ax² + bx + c = 0.",
    "a:number|b:number|c:number",
  ),
  tool(
    "solve_linear_system",
    "Solve a system of linear equations Ax = b by Gaussian elimination.",
    "matrix:array:rows of coefficients|constants:array",
  ),
  tool("matrix_multiply", "Multiply two matrices given as arrays of rows.", "a:array|b:array"),
  tool("matrix_determinant", "Compute the determinant of a square matrix.", "matrix:array"),
  tool(
    "round_significant_figures",
    "Round a number to a given count of significant figures.",
    "value:number|figures:integer",
    "return Number(inputs.value.toPrecision(inputs.figures));",
  ),
  tool(
    "number_base_convert",
    "Convert an integer between bases 2 to 36, e.g. binary, octal, decimal and hexadecimal.",
    "value:string|from_base:integer|to_base:integer",
    "return parseInt(inputs.value, inputs.from_base).toString(inputs.to_base);",
  ),
  tool("roman_numerals", "Convert an integer to Roman numerals, or Roman numerals back to an integer.", "value:string"),
  tool(
    "simplify_fraction",
    "Reduce a fraction to lowest terms, e.g. 42/56 → 3/4.",
    "numerator:integer|denominator:integer",
  ),
  tool(
    "decimal_to_fraction",
    "Express a decimal number as the closest fraction with a bounded denominator.",
    "value:number|max_denominator?:integer",
  ),
  tool(
    "percentage_of",
    "What is X percent of Y, and what percent is X of Y.",
    "part:number|whole:number",
    "return { percent: inputs.part / inputs.whole * 100 };",
  ),
  tool(
    "random_integer",
    "Draw a uniformly random whole number between a minimum and maximum, inclusive.",
    "min:integer|max:integer",
  ),
  tool(
    "moving_average",
    "Simple or exponential moving average of a time series with a given window.",
    "values:array|window:integer|kind?:string",
  ),
  tool(
    "histogram_bins",
    "Group numbers into equal-width bins and count how many fall in each.",
    "numbers:array|bins?:integer",
  ),
  tool(
    "normal_distribution",
    "Probability density and cumulative probability of the normal (Gaussian) distribution at a point.",
    "x:number|mean?:number|std_dev?:number",
  ),
  tool(
    "confidence_interval_mean",
    "Confidence interval for a mean from sample mean, standard deviation and sample size (t or z).",
    "mean:number|std_dev:number|n:integer|confidence?:number",
  ),
  tool(
    "survey_sample_size",
    "How many respondents a survey needs for a given margin of error, confidence level and population size.",
    "margin_of_error:number|confidence?:number|population?:integer",
  ),
  tool("weighted_average", "Weighted mean of values with their weights.", "values:array|weights:array"),
  tool(
    "evaluate_expression",
    "Safely evaluate an arithmetic expression with + - * / ^, parentheses and functions like sqrt, sin and log.",
    "expression:string",
  ),
  tool("collatz_sequence", "Generate the 3n+1 (Collatz) sequence starting from a positive integer.", "start:integer"),
  tool(
    "two_sample_t_test",
    "Welch's t-test comparing the means of two independent samples; returns t, degrees of freedom and p-value.",
    "sample_a:array|sample_b:array",
  ),
  tool("chi_square_test", "Chi-square test of independence on a contingency table of observed counts.", "table:array"),
  tool(
    "ab_test_significance",
    "Check whether the conversion rates of an A/B test's two variants differ significantly (two-proportion z-test).",
    "visitors_a:integer|conversions_a:integer|visitors_b:integer|conversions_b:integer",
  ),
];

const GEOMETRY = [
  tool(
    "circle_measurements",
    "Area, circumference and diameter of a circle from its radius.",
    "radius:number",
    "return { area: Math.PI * inputs.radius ** 2, circumference: 2 * Math.PI * inputs.radius };",
  ),
  tool(
    "triangle_area_heron",
    "Area of a triangle from the lengths of its three sides (Heron's formula).",
    "a:number|b:number|c:number",
  ),
  tool("rectangle_area_perimeter", "Area, perimeter and diagonal of a rectangle.", "width:number|height:number"),
  tool(
    "polygon_area",
    "Area of a simple polygon from its vertex coordinates (shoelace formula).",
    "points:array:[x, y] pairs",
  ),
  tool("sphere_volume_surface", "Volume and surface area of a sphere from its radius.", "radius:number"),
  tool(
    "cylinder_volume",
    "Volume and surface area of a cylinder from radius and height.",
    "radius:number|height:number",
  ),
  tool("cone_volume", "Volume and slant height of a right circular cone.", "radius:number|height:number"),
  tool(
    "pythagorean_theorem",
    "Find the missing side of a right triangle given the other two.",
    "a?:number|b?:number|c?:number:hypotenuse",
  ),
  tool("euclidean_distance", "Straight-line distance between two points in 2D or 3D space.", "p:array|q:array"),
  tool(
    "haversine_distance",
    "Great-circle distance in kilometers between two latitude/longitude coordinates on Earth.",
    "lat1:number|lon1:number|lat2:number|lon2:number",
  ),
  tool(
    "compass_bearing",
    "Initial compass bearing in degrees from one GPS coordinate to another.",
    "lat1:number|lon1:number|lat2:number|lon2:number",
  ),
  tool(
    "geographic_midpoint",
    "Geographic center point between two or more latitude/longitude locations.",
    "points:array",
  ),
  tool("point_in_polygon", "Test whether a point lies inside a polygon (ray casting).", "point:array|polygon:array"),
  tool(
    "rotate_point",
    "Rotate a 2D point around an origin by an angle in degrees.",
    "x:number|y:number|angle:number|origin?:array",
  ),
  tool(
    "dms_to_decimal_degrees",
    "Convert coordinates written in degrees, minutes and seconds (48°51'24\"N) to decimal degrees, and back.",
    "coordinate:string",
  ),
  tool("bounding_box", "Smallest axis-aligned rectangle that contains a set of points.", "points:array"),
  tool(
    "regular_polygon",
    "Interior angle, side length and area of a regular polygon with n sides.",
    "sides:integer|circumradius?:number|side_length?:number",
  ),
];

const COLOURS = [
  tool(
    "hex_to_rgb",
    "Convert a hex color code like #1e90ff to its red, green and blue components.",
    "hex:string",
    "const h = inputs.hex.replace('#', ''); return { r: parseInt(h.slice(0, 2), 16), g: parseInt(h.slice(2, 4), 16), b: parseInt(h.slice(4, 6), 16) };",
  ),
  tool(
    "rgb_to_hex",
    "Convert red, green, blue values (0-255) into a #rrggbb hex color string.",
    "r:integer|g:integer|b:integer",
  ),
  tool("rgb_to_hsl", "Convert an RGB color to hue, saturation and lightness.", "r:integer|g:integer|b:integer"),
  tool(
    "hsl_to_rgb",
    "Convert an HSL color (hue 0-360, saturation and lightness in %) to RGB.",
    "h:number|s:number|l:number",
  ),
  tool("cmyk_to_rgb", "Convert print CMYK percentages into screen RGB values.", "c:number|m:number|y:number|k:number"),
  tool(
    "contrast_ratio",
    "WCAG contrast ratio between a text color and a background color, with AA/AAA pass or fail for normal and large text.",
    "foreground:string|background:string",
  ),
  tool("adjust_color_lightness", "Lighten or darken a hex color by a percentage.", "hex:string|percent:number"),
  tool(
    "complementary_color",
    "Return the complementary (opposite on the color wheel) color of a hex color.",
    "hex:string",
  ),
  tool(
    "color_palette",
    "Generate a harmonious color palette (analogous, triadic, tetradic or monochromatic) from a base color.",
    "base:string|scheme?:string|count?:integer",
  ),
  tool(
    "mix_colors",
    "Blend two colors in a given ratio and return the resulting hex color.",
    "first:string|second:string|ratio?:number",
  ),
  tool(
    "nearest_css_color_name",
    "Find the closest named CSS color (like 'tomato' or 'steelblue') to a hex code.",
    "hex:string",
  ),
  tool(
    "color_temperature_to_rgb",
    "Approximate RGB color of a light source from its color temperature in kelvin.",
    "kelvin:number",
  ),
];

const ENCODINGS = [
  tool("base64_encode", "Encode a UTF-8 string to Base64 (optionally URL-safe).", "text:string|url_safe?:boolean"),
  tool("base64_decode", "Decode a Base64 or Base64url string back to UTF-8 text.", "data:string"),
  tool(
    "url_encode",
    "Percent-encode a string for safe use in a URL query parameter.",
    "text:string",
    "return encodeURIComponent(inputs.text);",
  ),
  tool(
    "url_decode",
    "Decode percent-encoded (%20) text from a URL back to plain characters.",
    "text:string",
    "return decodeURIComponent(inputs.text);",
  ),
  tool(
    "html_escape",
    "Escape &, <, >, quotes and apostrophes so text can be safely inserted into HTML.",
    "text:string",
  ),
  tool("html_unescape", "Turn HTML entities such as &amp;, &lt; and &#39; back into characters.", "text:string"),
  tool("sha256_hash", "Compute the SHA-256 digest of a text, as a hex string.", "text:string"),
  tool("sha1_hash", "Compute the SHA-1 hash of a string (hex).", "text:string"),
  tool("md5_hash", "Return the MD5 checksum of a string as 32 hex characters.", "text:string"),
  tool("sha512_hash", "SHA-512 digest of the input text in hexadecimal.", "text:string"),
  tool("crc32_checksum", "CRC-32 checksum of a string, as used by zip and PNG.", "text:string"),
  tool(
    "hmac_signature",
    "Sign a message with a secret key using HMAC-SHA256 and return the signature in hex or base64, e.g. to verify webhooks.",
    "message:string|secret:string|encoding?:string",
  ),
  tool(
    "text_to_hex",
    "Show the hexadecimal bytes of a UTF-8 string, or decode hex bytes back to text.",
    "text:string|decode?:boolean",
  ),
  tool(
    "jwt_decode",
    "Decode a JSON Web Token's header and payload (without verifying the signature) and show its expiry.",
    "token:string",
  ),
  tool("generate_uuid", "Generate one or more random version 4 UUIDs.", "count?:integer"),
  tool(
    "generate_password",
    "Create a random password of a given length with uppercase, lowercase, digits and symbols.",
    "length:integer|symbols?:boolean",
  ),
  tool(
    "password_strength",
    "Rate how strong a password is (entropy in bits, estimated crack time) and list its weaknesses.",
    "password:string",
  ),
  tool(
    "caesar_cipher",
    "Encrypt or decrypt text with a Caesar shift cipher of a given key.",
    "text:string|shift:integer|decrypt?:boolean",
  ),
  tool(
    "rot13",
    "Apply the ROT13 letter substitution to a text (applying it twice gives the original back).",
    "text:string",
  ),
  tool(
    "unicode_inspect",
    "List each character of a string with its Unicode code point, name category and UTF-8 bytes.",
    "text:string",
  ),
  tool(
    "punycode_convert",
    "Convert an internationalized domain name to its ASCII punycode form (xn--) and back.",
    "domain:string",
  ),
  tool("base32_encode", "Encode text or bytes as RFC 4648 Base32.", "text:string"),
  tool(
    "vigenere_cipher",
    "Encrypt or decrypt a message with the Vigenère cipher and a keyword.",
    "text:string|key:string|decrypt?:boolean",
  ),
  tool(
    "totp_code",
    "Generate the current 6-digit time-based one-time password (TOTP) from a base32 secret.",
    "secret:string|period?:integer",
  ),
];

const PARSING = [
  tool(
    "parse_csv",
    "Parse CSV text (with quoted fields and a header row) into an array of JSON objects.",
    "csv:string|delimiter?:string",
  ),
  tool("json_to_csv", "Turn an array of JSON objects into CSV text with a header row.", "rows:array|delimiter?:string"),
  tool(
    "csv_column_summary",
    "Profile each column of a CSV: type, count of empty cells, distinct values, min, max and mean.",
    "csv:string",
  ),
  tool(
    "validate_json",
    "Check whether a string is valid JSON and report the position of the first syntax error.",
    "text:string",
  ),
  tool(
    "pretty_print_json",
    "Reformat JSON with indentation and optionally sorted keys.",
    "json:string|indent?:integer|sort_keys?:boolean",
  ),
  tool(
    "minify_json",
    "Remove all whitespace from JSON to make it compact.",
    "json:string",
    "return JSON.stringify(JSON.parse(inputs.json));",
  ),
  tool(
    "json_path_query",
    "Select values from a JSON document with a JSONPath expression like $.store.book[*].author.",
    "json:string|path:string",
  ),
  tool(
    "flatten_json",
    "Flatten nested JSON objects into a single level with dotted keys (a.b.c).",
    "json:string|separator?:string",
  ),
  tool(
    "json_diff",
    "Compare two JSON documents and list the paths that were added, removed or changed.",
    "before:string|after:string",
  ),
  tool("xml_to_json", "Convert an XML document into an equivalent JSON structure, keeping attributes.", "xml:string"),
  tool(
    "xpath_select",
    "Evaluate an XPath expression against an XML document and return the matching nodes' text.",
    "xml:string|xpath:string",
  ),
  tool(
    "parse_url",
    "Break a URL into its parts: scheme, host, port, path, query parameters and fragment.",
    "url:string",
  ),
  tool("build_query_string", "Build a URL query string from key/value pairs, encoding them properly.", "params:object"),
  tool(
    "parse_user_agent",
    "Identify the browser, version, operating system and device type from a User-Agent header.",
    "user_agent:string",
  ),
  tool("yaml_to_json", "Convert YAML configuration text into JSON.", "yaml:string"),
  tool("json_to_yaml", "Convert JSON into YAML.", "json:string"),
  tool("parse_ini", "Parse an INI configuration file into sections and keys.", "text:string"),
  tool(
    "parse_access_log",
    "Parse web server access log lines (Apache/Nginx combined format) into IP, time, method, path, status and bytes.",
    "lines:string",
  ),
  tool("markdown_to_html", "Render Markdown (headings, lists, links, emphasis, code) to HTML.", "markdown:string"),
  tool(
    "html_table_to_json",
    "Extract the rows of an HTML <table> into JSON objects keyed by the header cells.",
    "html:string",
  ),
  tool("parse_markdown_table", "Parse a Markdown pipe table into an array of row objects.", "table:string"),
  tool(
    "validate_json_schema",
    "Validate a JSON document against a JSON Schema and list every violation with its path.",
    "document:string|schema:string",
  ),
  tool("toml_to_json", "Parse TOML configuration into JSON.", "toml:string"),
  tool(
    "parse_email_headers",
    "Parse raw email headers into fields like From, To, Subject, Date and the Received chain.",
    "raw:string",
  ),
  tool(
    "semver_compare",
    "Compare two semantic version numbers and say which is newer, or whether a version satisfies a range like ^1.2.0.",
    "a:string|b:string",
  ),
  tool("semver_bump", "Increment a semantic version's major, minor or patch number.", "version:string|part:string"),
  tool("sql_format", "Pretty-print an SQL query with uppercase keywords and one clause per line.", "sql:string"),
  tool(
    "regex_test",
    "Run a regular expression against sample text and show every match with its capture groups.",
    "pattern:string|text:string|flags?:string",
  ),
];

const VALIDATION = [
  tool(
    "validate_email",
    "Check whether an email address is syntactically valid and whether its domain looks deliverable.",
    "email:string",
    "return /^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$/.test(inputs.email);",
  ),
  tool(
    "validate_iban",
    "Validate an International Bank Account Number: country length and the mod-97 check digits.",
    "iban:string",
  ),
  tool(
    "validate_isbn",
    "Check an ISBN-10 or ISBN-13 book number's check digit, and convert between the two forms.",
    "isbn:string",
  ),
  tool(
    "luhn_card_check",
    "Check a credit or debit card number with the Luhn algorithm and detect the card brand (Visa, Mastercard, Amex).",
    "card_number:string",
  ),
  tool(
    "validate_phone_number",
    "Check and normalize a phone number to E.164 format for a given country.",
    "phone:string|country?:string",
  ),
  tool("validate_url", "Check whether a string is a well-formed absolute http(s) URL.", "url:string"),
  tool(
    "validate_postal_code",
    "Check a postal or ZIP code against the format of a given country.",
    "code:string|country:string",
  ),
  tool(
    "validate_eu_vat_number",
    "Check the format and checksum of a European Union VAT identification number.",
    "vat_number:string",
  ),
  tool("validate_uuid", "Check whether a string is a valid UUID and report its version.", "value:string"),
  tool(
    "validate_date",
    "Check that a date string exists in the calendar and matches an expected format.",
    "date:string|format?:string",
  ),
  tool(
    "validate_ean_barcode",
    "Verify the check digit of an EAN-13, EAN-8 or UPC-A product barcode.",
    "barcode:string",
  ),
  tool("validate_swift_bic", "Validate the structure of a SWIFT/BIC bank identifier code.", "bic:string"),
  tool(
    "validate_ipv4",
    "Check whether a string is a valid dotted IPv4 address and classify it as private, public or loopback.",
    "address:string",
  ),
  tool("validate_hex_color", "Check that a string is a valid CSS hex color (#rgb or #rrggbb).", "value:string"),
  tool(
    "validate_username",
    "Check a username against rules: length, allowed characters, no leading digit.",
    "username:string|min_length?:integer",
  ),
];

const NETWORKING = [
  tool(
    "subnet_calculator",
    "From an IPv4 CIDR block, compute the network address, broadcast address, netmask, wildcard mask and usable host range.",
    "cidr:string:e.g. 192.168.1.0/24",
  ),
  tool("ip_in_cidr", "Check whether an IP address belongs to a CIDR range.", "ip:string|cidr:string"),
  tool("ipv4_to_integer", "Convert a dotted IPv4 address to a 32-bit integer and back.", "value:string"),
  tool(
    "ipv6_expand_compress",
    "Expand an abbreviated IPv6 address to its full form or compress it to the shortest form.",
    "address:string",
  ),
  tool(
    "mac_address_format",
    "Normalize a MAC address to colon, dash or dot notation and look up whether it is locally administered.",
    "mac:string|style?:string",
  ),
  tool(
    "transfer_time",
    "Estimate how long it takes to transfer a file of a given size over a connection of a given speed.",
    "size:number|size_unit:string|speed:number|speed_unit:string:e.g. Mbps",
  ),
  tool(
    "port_service_lookup",
    "Look up the well-known service that uses a TCP/UDP port number (22 → ssh).",
    "port:integer",
  ),
  tool("http_status_meaning", "Explain an HTTP status code and when servers send it.", "code:integer"),
  tool(
    "dns_lookup",
    "Resolve a domain name's A, AAAA, MX or TXT records using DNS over HTTPS.",
    "domain:string|record_type?:string",
  ),
  tool(
    "check_website_up",
    "Fetch a URL and report whether the site is reachable, its HTTP status and response time.",
    "url:string",
  ),
  tool(
    "mime_type_lookup",
    "Return the MIME type for a file extension, or the usual extension for a MIME type.",
    "value:string",
  ),
  tool(
    "bandwidth_delay_product",
    "Compute the bandwidth-delay product and the TCP window needed to fill a link of given bandwidth and round-trip time.",
    "bandwidth_mbps:number|rtt_ms:number",
  ),
  tool("cidr_to_ip_list", "List every IP address in a small CIDR range.", "cidr:string"),
  tool("summarize_cidrs", "Merge a list of IP ranges into the smallest set of CIDR blocks.", "cidrs:array"),
];

const HEALTH = [
  tool(
    "bmi_calculator",
    "Body mass index from weight and height (metric or imperial) with its WHO category.",
    "weight:number|height:number|units?:string:metric or imperial",
    "return { bmi: inputs.weight / (inputs.height / 100) ** 2 };",
  ),
  tool(
    "basal_metabolic_rate",
    "Resting energy expenditure (BMR) with the Mifflin-St Jeor equation from sex, age, weight and height.",
    "sex:string|age:integer|weight_kg:number|height_cm:number",
  ),
  tool(
    "daily_calorie_needs",
    "Total daily energy expenditure (TDEE) from BMR and activity level, with calorie targets to lose or gain weight.",
    "bmr:number|activity_level:string|goal?:string",
  ),
  tool(
    "body_fat_navy",
    "Estimate body fat percentage with the U.S. Navy tape method (neck, waist, hip).",
    "sex:string|height_cm:number|neck_cm:number|waist_cm:number",
  ),
  tool(
    "ideal_body_weight",
    "Ideal body weight for a height using the Devine, Robinson and Miller formulas.",
    "height_cm:number|sex:string",
  ),
  tool(
    "heart_rate_zones",
    "Training heart rate zones from age and resting pulse (Karvonen method).",
    "age:integer|resting_heart_rate?:integer",
  ),
  tool(
    "running_pace",
    "Pace per kilometer and per mile, and speed, from a running distance and finish time.",
    "distance_km:number|time:string:hh:mm:ss",
  ),
  tool(
    "race_time_predictor",
    "Predict a finish time for another race distance from a recent result (Riegel formula).",
    "known_distance_km:number|known_time:string|target_distance_km:number",
  ),
  tool(
    "water_intake",
    "Recommended daily water intake from body weight and exercise minutes.",
    "weight_kg:number|exercise_minutes?:number",
  ),
  tool(
    "calories_burned",
    "Calories burned during an activity (walking, cycling, swimming...) from its MET value, body weight and duration.",
    "activity:string|weight_kg:number|minutes:number",
  ),
  tool(
    "one_rep_max",
    "Estimate a one-repetition maximum from a weight lifted for several reps (Epley and Brzycki).",
    "weight:number|reps:integer",
  ),
  tool(
    "sleep_cycle_times",
    "Suggest bedtimes or wake-up times that line up with 90-minute sleep cycles.",
    "wake_time?:string|bed_time?:string",
  ),
  tool(
    "pregnancy_due_date",
    "Estimated due date and current week of pregnancy from the first day of the last menstrual period.",
    "last_period:string",
  ),
  tool(
    "blood_alcohol_estimate",
    "Rough blood alcohol concentration using the Widmark formula from drinks, body weight, sex and hours since drinking.",
    "standard_drinks:number|weight_kg:number|sex:string|hours:number",
  ),
  tool(
    "steps_to_distance",
    "Convert a step count into kilometers walked using stride length or height.",
    "steps:integer|height_cm?:number",
  ),
  tool(
    "macro_split",
    "Grams of protein, carbohydrate and fat per day for a calorie target and a macro ratio.",
    "calories:number|protein_pct:number|carb_pct:number|fat_pct:number",
  ),
  tool(
    "waist_to_height_ratio",
    "Waist-to-height ratio and what it suggests about health risk.",
    "waist_cm:number|height_cm:number",
  ),
  tool(
    "medication_dose_by_weight",
    "Compute a dose in mg from a per-kilogram dosage and body weight, split into doses per day.",
    "mg_per_kg:number|weight_kg:number|doses_per_day?:integer",
  ),
];

const COOKING = [
  tool(
    "scale_recipe",
    "Scale a recipe's ingredient quantities from its original number of servings to a new number of servings.",
    "ingredients:array|original_servings:number|new_servings:number",
  ),
  tool(
    "cups_to_grams",
    "Convert cups, tablespoons and teaspoons of a baking ingredient (flour, sugar, butter, rice...) into grams.",
    "amount:number|unit:string|ingredient:string",
  ),
  tool(
    "oven_temperature",
    "Convert oven temperatures between °C, °F, fan oven and British gas mark.",
    "value:number|from_scale:string|to_scale:string",
  ),
  tool(
    "roast_cooking_time",
    "Roasting time and oven temperature for a cut of meat (turkey, chicken, beef, lamb, pork) by its weight.",
    "meat:string|weight_kg:number|doneness?:string",
  ),
  tool(
    "bread_hydration",
    "Baker's percentages for a dough: hydration, salt and yeast relative to flour weight, or the amounts for a target hydration.",
    "flour_g:number|water_g?:number|target_hydration?:number",
  ),
  tool(
    "ingredient_substitute",
    "Suggest substitutes for a missing ingredient (buttermilk, eggs, baking powder...) with quantities.",
    "ingredient:string|amount?:string",
  ),
  tool(
    "brine_ratio",
    "Salt and water amounts for a wet brine or pickling solution at a given salinity percentage.",
    "water_liters:number|salinity_pct?:number",
  ),
  tool(
    "coffee_ratio",
    "Coffee grounds and water amounts for a brew method (pour-over, French press, espresso) and cup count.",
    "cups:integer|method?:string|ratio?:number",
  ),
  tool(
    "boiled_egg_timer",
    "Minutes to boil an egg for soft, jammy or hard yolk, by size and altitude.",
    "doneness:string|size?:string|altitude_m?:number",
  ),
  tool(
    "pizza_dough",
    "Flour, water, salt and yeast quantities for a number of pizza dough balls of a given weight and hydration.",
    "balls:integer|ball_weight_g?:number|hydration?:number",
  ),
  tool(
    "nutrition_per_serving",
    "Total calories, protein, carbs and fat of a recipe and per serving from its ingredient list.",
    "ingredients:array|servings:integer",
  ),
  tool(
    "thaw_time",
    "How long frozen food takes to defrost in the fridge, in cold water or in the microwave, by weight.",
    "weight_kg:number|method:string",
  ),
  tool(
    "cake_pan_convert",
    "Adjust a recipe when baking in a different pan size or shape (round, square, loaf).",
    "from_pan:string|to_pan:string",
  ),
  tool(
    "sourdough_feeding",
    "Amounts of starter, flour and water for a sourdough feeding at a given ratio (e.g. 1:2:2).",
    "starter_g:number|ratio:string",
  ),
];

const SCIENCE = [
  tool(
    "molar_mass",
    "Compute the molar mass of a chemical formula like C6H12O6 or Ca(OH)2 in g/mol.",
    "formula:string",
  ),
  tool(
    "ideal_gas_law",
    "Solve PV = nRT for the missing quantity (pressure, volume, moles or temperature).",
    "pressure?:number|volume?:number|moles?:number|temperature?:number",
  ),
  tool(
    "dilution_c1v1",
    "Solve C1·V1 = C2·V2 to prepare a diluted solution from a stock solution.",
    "c1:number|v1?:number|c2:number|v2?:number",
  ),
  tool(
    "ph_calculator",
    "pH, pOH and hydrogen ion concentration from a molar concentration of a strong acid or base.",
    "concentration:number|kind:string:acid or base",
  ),
  tool(
    "radioactive_decay",
    "Amount of a radioactive substance remaining after a time from its half-life, or the half-life from two measurements.",
    "initial_amount:number|half_life:number|elapsed:number",
  ),
  tool(
    "ohms_law",
    "Solve Ohm's law: any two of voltage, current, resistance and power give the others.",
    "voltage?:number|current?:number|resistance?:number|power?:number",
  ),
  tool(
    "resistor_color_code",
    "Decode a resistor's colored bands (4, 5 or 6 bands) into resistance and tolerance.",
    "bands:array",
  ),
  tool(
    "resistors_combined",
    "Equivalent resistance of resistors connected in series or in parallel.",
    "resistances:array|arrangement:string",
  ),
  tool("kinetic_energy", "Kinetic energy of a moving mass, ½mv².", "mass_kg:number|velocity_ms:number"),
  tool(
    "projectile_motion",
    "Range, maximum height and flight time of a projectile launched at an angle and speed.",
    "speed:number|angle_deg:number|height?:number",
  ),
  tool(
    "free_fall",
    "Time to fall from a height and the impact speed, ignoring air resistance.",
    "height_m:number|gravity?:number",
  ),
  tool(
    "wavelength_frequency",
    "Convert between wavelength and frequency of an electromagnetic wave, with photon energy.",
    "wavelength_nm?:number|frequency_hz?:number",
  ),
  tool(
    "density_mass_volume",
    "Solve density = mass / volume for whichever of the three is missing.",
    "density?:number|mass?:number|volume?:number",
  ),
  tool(
    "balance_chemical_equation",
    "Balance a chemical reaction equation such as 'Fe + O2 -> Fe2O3' with integer coefficients.",
    "equation:string",
  ),
  tool(
    "periodic_table_lookup",
    "Look up an element by symbol, name or atomic number: atomic mass, group, period, electron configuration.",
    "element:string",
  ),
  tool(
    "speed_distance_time",
    "Solve for speed, distance or travel time given the other two.",
    "speed?:number|distance?:number|time?:number",
  ),
  tool(
    "led_resistor",
    "Series resistor value needed to drive an LED from a supply voltage at a given current.",
    "supply_voltage:number|led_voltage:number|current_ma:number",
  ),
  tool(
    "rc_time_constant",
    "RC circuit time constant and the time to charge a capacitor to a given percentage.",
    "resistance_ohm:number|capacitance_f:number|percent?:number",
  ),
  tool(
    "gravitational_force",
    "Newtonian gravitational force between two masses at a distance.",
    "mass1:number|mass2:number|distance_m:number",
  ),
  tool(
    "electricity_cost",
    "Cost of running an electrical appliance from its wattage, hours of use per day and the price per kWh.",
    "watts:number|hours_per_day:number|price_per_kwh:number|days?:integer",
  ),
  tool(
    "sound_decibels_add",
    "Add or average sound levels in decibels, or the level change when distance doubles.",
    "levels:array",
  ),
  tool(
    "doppler_shift",
    "Observed frequency of a sound from a moving source or observer (Doppler effect).",
    "frequency:number|source_speed:number|observer_speed?:number",
  ),
  tool(
    "heat_energy",
    "Heat needed to raise a mass of a substance by a temperature change, Q = m·c·ΔT.",
    "mass_kg:number|specific_heat:number|delta_t:number",
  ),
  tool(
    "solar_panel_output",
    "Estimate daily and yearly energy from a solar panel system from its peak power and sun hours.",
    "kw_peak:number|sun_hours:number|efficiency?:number",
  ),
];

const GAMES = [
  tool(
    "roll_dice",
    "Roll dice written in RPG notation such as 3d6+2 or 1d20 and show each die and the total.",
    "notation:string",
  ),
  tool(
    "deal_cards",
    "Shuffle a standard 52-card deck and deal hands to a number of players.",
    "players:integer|cards_each:integer",
  ),
  tool(
    "poker_hand_rank",
    "Identify the rank of a five-card poker hand (pair, flush, full house...) and compare two hands.",
    "hand:array|other_hand?:array",
  ),
  tool(
    "tic_tac_toe_winner",
    "Determine whether X or O has won a tic-tac-toe board, or whether it is a draw.",
    "board:array",
  ),
  tool("sudoku_solver", "Solve a 9×9 sudoku puzzle given as 81 digits with 0 or . for blanks.", "puzzle:string"),
  tool("sudoku_validator", "Check whether a filled-in sudoku grid breaks any row, column or box rule.", "grid:string"),
  tool(
    "elo_rating",
    "Update two players' Elo ratings after a game (win, loss or draw) with a K-factor.",
    "rating_a:number|rating_b:number|result:string|k?:number",
  ),
  tool(
    "random_teams",
    "Split a list of players into a number of random, balanced teams.",
    "players:array|teams:integer",
  ),
  tool(
    "anagram_solver",
    "Find dictionary words that can be made from a set of letters, e.g. for Scrabble.",
    "letters:string|min_length?:integer",
  ),
  tool(
    "wordle_feedback",
    "Score a Wordle guess against the answer: green, yellow and gray for each letter.",
    "guess:string|answer:string",
  ),
  tool("coin_flip", "Flip one or more fair coins and count heads and tails.", "flips?:integer"),
  tool(
    "rock_paper_scissors",
    "Play a round of rock-paper-scissors against the computer and say who wins.",
    "move:string",
  ),
  tool(
    "bowling_score",
    "Compute a ten-pin bowling game's score from the list of rolls, strikes and spares included.",
    "rolls:array",
  ),
  tool(
    "chess_fen_board",
    "Draw the chess position described by a FEN string as a text board and say whose move it is.",
    "fen:string",
  ),
  tool(
    "lottery_odds",
    "Odds of matching k numbers in a lottery draw of n numbers from a pool.",
    "pool:integer|drawn:integer|match:integer",
  ),
  tool("magic_square_check", "Check whether a square grid of numbers is a magic square.", "grid:array"),
  tool(
    "random_pick",
    "Pick one or more random items from a list, without repeats, e.g. to choose a winner.",
    "items:array|count?:integer",
  ),
];

const DATA_CLEANING = [
  tool(
    "deduplicate_records",
    "Remove duplicate rows from a list of records, comparing all fields or chosen key fields.",
    "records:array|keys?:array",
  ),
  tool(
    "normalize_whitespace_fields",
    "Trim every string field of each record and turn empty strings into null.",
    "records:array",
  ),
  tool(
    "fill_missing_values",
    "Fill null or blank fields in tabular records with a constant, the column mean, median or the previous value.",
    "records:array|strategy:string|column?:string",
  ),
  tool(
    "normalize_phone_numbers",
    "Rewrite a column of messy phone numbers into one consistent international format.",
    "phones:array|default_country?:string",
  ),
  tool(
    "normalize_dates_column",
    "Parse dates written in mixed formats (03/04/2024, 4 March 2024, 2024.03.04) and rewrite them all as ISO YYYY-MM-DD.",
    "dates:array|day_first?:boolean",
  ),
  tool(
    "remove_outliers",
    "Drop values outside the interquartile-range fences (or beyond a z-score) from a numeric list.",
    "values:array|method?:string",
  ),
  tool(
    "standardize_column_names",
    "Rename record keys to clean snake_case column names, removing spaces and symbols.",
    "records:array",
  ),
  tool(
    "split_full_name",
    "Split full names into first, middle and last name, handling titles and suffixes.",
    "names:array",
  ),
  tool(
    "join_records",
    "Join two lists of records on a shared key field (inner, left or outer join).",
    "left:array|right:array|key:string|how?:string",
  ),
  tool(
    "group_and_aggregate",
    "Group records by a field and compute sum, count, average, min or max of another field.",
    "records:array|group_by:string|field:string|aggregate:string",
  ),
  tool(
    "sort_records",
    "Sort a list of records by one or more fields, ascending or descending.",
    "records:array|fields:array",
  ),
  tool(
    "filter_records",
    "Keep only the records matching conditions like price > 10 and country = 'FR'.",
    "records:array|conditions:array",
  ),
  tool(
    "infer_column_types",
    "Guess each column's data type (integer, float, boolean, date, string) from sample values.",
    "records:array",
  ),
  tool(
    "fuzzy_match_names",
    "Match names in one list to the closest names in another list with a similarity score, tolerating typos.",
    "names:array|candidates:array|threshold?:number",
  ),
  tool(
    "min_max_scale",
    "Rescale numbers linearly into the 0-1 range (or another range).",
    "values:array|min?:number|max?:number",
  ),
  tool("one_hot_encode", "Turn a categorical column into one-hot indicator columns.", "records:array|column:string"),
  tool(
    "pivot_table",
    "Pivot records into a table with one field as rows, another as columns and an aggregated value.",
    "records:array|rows:string|columns:string|values:string",
  ),
  tool(
    "random_sample_rows",
    "Take a random sample of rows from a dataset, with an optional seed for repeatability.",
    "records:array|size:integer|seed?:integer",
  ),
  tool("clean_currency_strings", "Convert strings like '$1,234.50' or '1.234,50 €' to plain numbers.", "values:array"),
  tool(
    "detect_encoding_issues",
    "Find and fix mojibake (garbled accented characters like 'Ã©') in text.",
    "text:string",
  ),
];

const WEB = [
  tool(
    "weather_forecast",
    "Fetch the weather forecast (temperature, rain, wind) for a city for the next days from Open-Meteo.",
    "city:string|days?:integer",
    "return fetch('https://api.open-meteo.com/v1/forecast?city=' + encodeURIComponent(inputs.city)).then((r) => r.json());",
  ),
  tool("fetch_page_title", "Download a web page and return its <title> and meta description.", "url:string"),
  tool("fetch_json", "GET a JSON API endpoint and return the parsed response body.", "url:string|headers?:object"),
  tool(
    "read_rss_feed",
    "Fetch an RSS or Atom feed and list its latest items with title, link and date.",
    "url:string|limit?:integer",
  ),
  tool(
    "github_repo_info",
    "Fetch a GitHub repository's stars, forks, open issues, license and last push date.",
    "owner:string|repo:string",
  ),
  tool("wikipedia_summary", "Get the introduction of a Wikipedia article on a topic.", "topic:string|language?:string"),
  tool(
    "crypto_price",
    "Fetch the current price of a cryptocurrency like bitcoin or ethereum in a fiat currency.",
    "coin:string|currency?:string",
  ),
  tool("stock_quote", "Fetch the latest quote of a stock ticker: price, change and volume.", "symbol:string"),
  tool(
    "geocode_address",
    "Turn a street address or place name into latitude and longitude using OpenStreetMap Nominatim.",
    "address:string",
  ),
  tool(
    "reverse_geocode",
    "Find the address or place name nearest to a latitude/longitude.",
    "latitude:number|longitude:number",
  ),
  tool(
    "npm_package_info",
    "Fetch an npm package's latest version, description, license and weekly downloads.",
    "name:string",
  ),
  tool(
    "public_holidays",
    "List a country's public holidays for a year from the Nager.Date API.",
    "country:string:ISO code|year:integer",
  ),
  tool(
    "air_quality",
    "Fetch the current air quality index and pollutant levels (PM2.5, ozone) for a location.",
    "latitude:number|longitude:number",
  ),
  tool("extract_page_links", "Fetch a web page and list every hyperlink on it with its anchor text.", "url:string"),
  tool(
    "dictionary_definition",
    "Look up an English word's definitions, part of speech and pronunciation in a free dictionary API.",
    "word:string",
  ),
  tool("ip_geolocation", "Find the approximate country, city and network owner of a public IP address.", "ip:string"),
  tool("random_joke", "Fetch a random joke, optionally of a category like programming.", "category?:string"),
  tool("hacker_news_top", "List the current top stories on Hacker News with scores and links.", "limit?:integer"),
  tool(
    "book_lookup_by_isbn",
    "Fetch a book's title, authors, publisher and cover from Open Library by its ISBN.",
    "isbn:string",
  ),
  tool(
    "country_info",
    "Fetch facts about a country: capital, population, currencies, languages and calling code.",
    "country:string",
  ),
  tool("sitemap_urls", "Download a website's sitemap.xml and list the page URLs it contains.", "url:string"),
  tool(
    "earthquakes_recent",
    "List recent earthquakes above a magnitude from the USGS feed.",
    "min_magnitude?:number|days?:integer",
  ),
];

const EVERYDAY = [
  tool(
    "gpa_calculator",
    "Grade point average from course grades and credit hours on a 4.0 scale.",
    "courses:array:objects with grade and credits",
  ),
  tool(
    "grade_needed_final",
    "Score needed on the final exam to reach a target course grade given the current grade and the final's weight.",
    "current_grade:number|target_grade:number|final_weight:number",
  ),
  tool(
    "reading_time",
    "Estimate how long a text takes to read aloud or silently at a words-per-minute rate.",
    "text:string|wpm?:integer",
  ),
  tool(
    "typing_speed",
    "Words per minute and accuracy from a typed passage compared with the original and the time taken.",
    "original:string|typed:string|seconds:number",
  ),
  tool(
    "timesheet_hours",
    "Add up hours worked from clock-in and clock-out times across a week, minus breaks.",
    "entries:array",
  ),
  tool(
    "overtime_pay",
    "Weekly pay including overtime at 1.5× for hours beyond 40.",
    "hours:number|hourly_rate:number|overtime_multiplier?:number",
  ),
  tool(
    "paint_estimate",
    "Liters or gallons of paint needed for a room's walls, less doors and windows, for a number of coats.",
    "length_m:number|width_m:number|height_m:number|coats?:integer",
  ),
  tool(
    "tile_estimate",
    "Number of floor or wall tiles and boxes needed for an area, with a waste allowance.",
    "area_m2:number|tile_width_cm:number|tile_length_cm:number|waste_pct?:number",
  ),
  tool(
    "concrete_volume",
    "Cubic meters or yards of concrete for a slab, footing or column, and the number of bags.",
    "length:number|width:number|depth:number",
  ),
  tool(
    "trip_fuel_cost",
    "Fuel needed and the cost of a road trip from distance, consumption and fuel price.",
    "distance_km:number|liters_per_100km:number|price_per_liter:number",
  ),
  tool(
    "flight_carbon_footprint",
    "Estimate the CO₂ emissions of a flight between two airports for a cabin class.",
    "from_airport:string|to_airport:string|cabin?:string",
  ),
  tool(
    "tire_size_calculator",
    "Overall diameter, sidewall height and circumference of a tire from a size like 225/45R17.",
    "size:string",
  ),
  tool(
    "aspect_ratio_resize",
    "Compute the missing width or height to keep an image's aspect ratio when resizing.",
    "width:number|height:number|new_width?:number|new_height?:number",
  ),
  tool(
    "print_size_dpi",
    "Maximum print size in inches or cm of an image at a given DPI, from its pixel dimensions.",
    "width_px:integer|height_px:integer|dpi:integer",
  ),
  tool(
    "screen_ppi",
    "Pixel density of a display from its resolution and diagonal size in inches.",
    "width_px:integer|height_px:integer|diagonal_in:number",
  ),
  tool(
    "human_readable_bytes",
    "Format a byte count as a human-readable size like 1.4 MB or 3.2 GiB.",
    "bytes:number|binary?:boolean",
  ),
  tool(
    "pomodoro_plan",
    "Plan a work session into pomodoros of focus time and short and long breaks.",
    "total_minutes:integer|focus_minutes?:integer",
  ),
  tool("qr_code_matrix", "Encode text or a URL as a QR code and return the module matrix as text art.", "text:string"),
  tool(
    "lorem_name_generator",
    "Generate random realistic fake names, emails and addresses for test data.",
    "count:integer|locale?:string",
  ),
  tool(
    "password_policy_check",
    "Check a password against an organisation's policy: minimum length, required classes, banned words.",
    "password:string|min_length?:integer",
  ),
  tool(
    "unit_rate_per_hour",
    "Convert a quantity over a period to a rate per hour, per day, per week and per year.",
    "amount:number|period:string",
  ),
  tool(
    "wind_chill",
    "Wind chill (feels-like) temperature from air temperature and wind speed.",
    "temperature_c:number|wind_kmh:number",
  ),
  tool(
    "heat_index",
    "Heat index (apparent temperature) from air temperature and relative humidity.",
    "temperature_c:number|humidity:number",
  ),
  tool(
    "dew_point",
    "Dew point temperature from air temperature and relative humidity.",
    "temperature_c:number|humidity:number",
  ),
  tool("beaufort_scale", "Beaufort wind force number and description for a wind speed.", "speed_kmh:number"),
  tool(
    "shopping_list_merge",
    "Merge several shopping lists, summing quantities of the same item and grouping by aisle.",
    "lists:array",
  ),
  tool(
    "random_gift_exchange",
    "Draw names for a Secret Santa gift exchange so nobody gets themselves or excluded pairs.",
    "participants:array|exclusions?:array",
  ),
  tool(
    "plant_watering_schedule",
    "Suggest how often to water a houseplant by species, pot size and season.",
    "plant:string|pot_diameter_cm?:number|season?:string",
  ),
  tool(
    "dog_age_human_years",
    "Convert a dog's age into equivalent human years by size of breed.",
    "age_years:number|size?:string",
  ),
  tool("baby_name_meaning", "Give the origin and meaning of a first name.", "name:string"),
  tool(
    "tip_pool_split",
    "Split pooled tips among staff in proportion to the hours each worked.",
    "total_tips:number|hours:object",
  ),
  tool(
    "loan_comparison",
    "Compare two or more loan offers by monthly payment, total interest and APR.",
    "offers:array",
  ),
  tool(
    "commute_time_cost",
    "Yearly time and money spent commuting from the daily round trip.",
    "minutes_per_day:number|cost_per_day:number|days_per_week?:integer",
  ),
  tool(
    "rent_split_by_room",
    "Split rent between flatmates in proportion to their bedroom sizes.",
    "rent:number|rooms:object",
  ),
];

/** The library retrieval is measured on: at least 320 distinct tools. */
export const TOOL_CORPUS: CorpusTool[] = [
  ...UNITS,
  ...TEXT,
  ...DATES,
  ...CALENDAR,
  ...FINANCE,
  ...MATHS,
  ...GEOMETRY,
  ...COLOURS,
  ...ENCODINGS,
  ...PARSING,
  ...VALIDATION,
  ...NETWORKING,
  ...HEALTH,
  ...COOKING,
  ...SCIENCE,
  ...GAMES,
  ...DATA_CLEANING,
  ...WEB,
  ...EVERYDAY,
];

/** A corpus tool as `saveToolVersion` stores it: a library tool (no conversation) of `ownerId`. */
export function asNewToolVersion(tool: CorpusTool, ownerId: string): NewToolVersion {
  return { ownerId, conversationId: null, runId: null, examples: [], ...tool };
}

export interface RetrievalTask {
  /** What a person writes in the chat. */
  task: string;
  /** The one corpus tool that answers it. */
  tool: string;
}

/**
 * (task, right tool) pairs, written as people write chat messages, before anything was measured: varied wording and
 * length, paraphrase, data in some, indirect in others, and never the tool's name or two of its name's words in a
 * row (the test checks that). A task whose answer two corpus tools give equally well was left out.
 */
export const RETRIEVAL_TASKS: RetrievalTask[] = [
  { task: "It's 98.6 degrees F on the thermometer, what is that in °C?", tool: "fahrenheit_to_celsius" },
  {
    task: "The forecast in Lisbon says 31 °C tomorrow — how hot is that for an American who thinks in Fahrenheit?",
    tool: "celsius_to_fahrenheit",
  },
  { task: "Liquid nitrogen boils at 77 K. Express that in Celsius please", tool: "kelvin_to_celsius" },
  { task: "How many yards are in 400 metres?", tool: "convert_length" },
  { task: "I weigh 11 stone 4, what's that in kg?", tool: "convert_weight" },
  { task: "how many gigabytes is 3.5 TiB exactly", tool: "convert_data_size" },
  { task: "My car does 38 mpg — what is that in litres per hundred km?", tool: "convert_fuel_economy" },
  {
    task: "How long is this paragraph in words and characters? 'The quick brown fox jumps over the lazy dog. It was not amused.'",
    tool: "word_count",
  },
  { task: "turn 'My First Blog Post: Hello World!' into something I can use in the URL", tool: "slugify_text" },
  { task: "Is 'A man, a plan, a canal: Panama' the same when read backwards?", tool: "is_palindrome" },
  { task: "How many single-letter edits does it take to turn kitten into sitting?", tool: "levenshtein_distance" },
  {
    task: "Grab every e-mail address from this mess: contact bob@example.com or sales@acme.io, cc: bob@example.com",
    tool: "extract_emails",
  },
  { task: "Spell my surname KOWALSKI the way pilots do over the radio", tool: "nato_phonetic_spelling" },
  { task: "write 4,718 out in full for a cheque", tool: "number_to_words" },
  {
    task: "what changed between these two versions of my config? old: 'a=1\nb=2' new: 'a=1\nb=3\nc=4'",
    tool: "line_diff",
  },
  { task: "How many days are there from 14 February 2025 to 1 September 2025?", tool: "days_between_dates" },
  { task: "how many days until my birthday on 3 March?", tool: "countdown_to_date" },
  { task: "Was the moon landing on 20 July 1969 a weekday or a weekend, and which one?", tool: "day_of_week" },
  { task: "If it's 9am in New York, what time is it in Tokyo?", tool: "convert_timezone" },
  { task: "Show me what time it is right now in London, Mumbai, São Paulo and Auckland", tool: "world_clock" },
  { task: "The log says 1700000000 — when was that in human terms?", tool: "unix_timestamp_to_date" },
  { task: "Does the year 2100 get a February 29th?", tool: "is_leap_year" },
  {
    task: "How old is someone born on 29 February 1988 as of today, in years, months and days?",
    tool: "age_from_birthdate",
  },
  {
    task: "The contract says delivery within 15 working days from 2 May. Which date is that, not counting weekends?",
    tool: "add_business_days",
  },
  {
    task: "How many working days are there in Q3 2025 if we skip Saturdays and Sundays?",
    tool: "business_days_between",
  },
  { task: "Which calendar week (ISO) does 31 December 2024 belong to?", tool: "iso_week_number" },
  { task: "Turn 5400 seconds into something readable like '1 h 30 min'", tool: "format_duration" },
  { task: "How many seconds is 2h45m?", tool: "parse_duration" },
  {
    task: "We're in Berlin, San Francisco and Bangalore; when can we all meet during office hours?",
    tool: "meeting_time_finder",
  },
  { task: "When does the sun come up in Reykjavik (64.1, -21.9) on 21 June?", tool: "sunrise_sunset" },
  { task: "Will there be a full moon on Halloween 2025?", tool: "moon_phase" },
  { task: "What does '0 */4 * * 1-5' mean in a crontab?", tool: "cron_explain" },
  { task: "When will my job scheduled as '30 2 * * 0' fire the next three times?", tool: "cron_next_runs" },
  {
    task: "Our book club meets on the second Tuesday of every month. What's the date in October 2025?",
    tool: "nth_weekday_of_month",
  },
  { task: "When is Easter Sunday in 2031?", tool: "easter_date" },
  {
    task: "Make me a calendar invite file for 'Team offsite' on 12 June 2025, 9:00–17:00 at the Lisbon office",
    tool: "build_ics_event",
  },
  { task: "What are the bank holidays in Germany in 2026?", tool: "public_holidays" },
  {
    task: "If I put 10,000 in an account paying 4.5% a year compounded monthly, what will I have after 10 years?",
    tool: "compound_interest",
  },
  {
    task: "I want to borrow 25k for a car over 5 years at 6.9%. What will I pay each month?",
    tool: "loan_monthly_payment",
  },
  {
    task: "Show me how much of each mortgage payment goes to interest vs principal over the life of a 300k 30-year loan at 5%",
    tool: "amortization_schedule",
  },
  {
    task: "Our project costs 50k now and returns 15k a year for 5 years; is it worth it at an 8% discount rate?",
    tool: "net_present_value",
  },
  { task: "Sales went from 1,250 to 1,610 — by what percent did they grow?", tool: "percent_change" },
  { task: "I'm charging 149 including 20% VAT; how much of that is the tax?", tool: "vat_calculator" },
  { task: "Dinner came to $186, we want to leave 18% and split it four ways", tool: "tip_calculator" },
  {
    task: "On our ski trip Anna paid 420, Ben 150 and Chloe nothing. Who should pay whom to even things up?",
    tool: "settle_shared_expenses",
  },
  { task: "How many euros do I get for 500 US dollars today?", tool: "currency_convert" },
  { task: "What's $100 from 1985 worth in today's money?", tool: "inflation_adjust" },
  {
    task: "Fixed costs are 12,000 a month, we sell mugs at 15 and they cost 6 to make; how many must we sell to stop losing money?",
    tool: "break_even_point",
  },
  {
    task: "I owe 4,800 on my card at 22% APR and pay 200 a month, how long until it's gone?",
    tool: "credit_card_payoff",
  },
  { task: "My portfolio went from 20k to 34k in 6 years, what's the annualised growth?", tool: "cagr" },
  { task: "Which is the better buy: 500 g of coffee for 7.49 or 1.2 kg for 16.90?", tool: "unit_price_compare" },
  { task: "I earn 28 an hour at 37.5 hours a week; what's that per year?", tool: "hourly_to_annual_salary" },
  { task: "Give me the mean, median and mode of 4, 8, 15, 16, 23, 42, 8", tool: "descriptive_statistics" },
  {
    task: "How spread out are these test scores: 72, 85, 90, 66, 78, 95? I need the sample SD",
    tool: "standard_deviation",
  },
  { task: "Fit a trend line through (1,2) (2,4.1) (3,5.9) (4,8.2) and tell me the slope", tool: "linear_regression" },
  {
    task: "Do ice cream sales and temperature move together? temps 18,22,25,30 sales 120,150,170,230",
    tool: "pearson_correlation",
  },
  { task: "How many different 5-person committees can be formed from 12 people?", tool: "binomial_coefficient" },
  { task: "Is 2,147,483,647 a prime?", tool: "is_prime" },
  { task: "Break 360 down into the primes that multiply to it", tool: "prime_factorization" },
  { task: "Find x for 2x² − 3x − 5 = 0", tool: "solve_quadratic" },
  { task: "What's 255 in binary and in hex?", tool: "number_base_convert" },
  { task: "What year is MCMLXXXIV?", tool: "roman_numerals" },
  { task: "Reduce 84/126 to lowest terms", tool: "simplify_fraction" },
  { task: "Work out sqrt(2) * (3 + 4^2) / log(10) for me", tool: "evaluate_expression" },
  {
    task: "We ran an A/B test: 5,000 visitors and 210 sign-ups on the old page, 5,100 and 260 on the new one. Is the new page really better?",
    tool: "ab_test_significance",
  },
  { task: "How many people do I need to survey for a ±3% margin at 95% confidence?", tool: "survey_sample_size" },
  {
    task: "How far is it as the crow flies from Paris (48.8566, 2.3522) to Rome (41.9028, 12.4964)?",
    tool: "haversine_distance",
  },
  { task: "Area of a triangle whose sides are 7, 8 and 9?", tool: "triangle_area_heron" },
  {
    task: "A ladder is 5 m long and its foot is 1.5 m from the wall; how high up the wall does it reach?",
    tool: "pythagorean_theorem",
  },
  { task: "How much water fits in a round tank 1.2 m across and 2 m tall?", tool: "cylinder_volume" },
  { task: "Convert 40°26'46\"N to a decimal I can paste into Google Maps", tool: "dms_to_decimal_degrees" },
  { task: "What are the red, green and blue values of #ff6347?", tool: "hex_to_rgb" },
  { task: "Is light grey text #999 on a white background readable enough for accessibility?", tool: "contrast_ratio" },
  { task: "Give me a colour that sits opposite teal on the colour wheel", tool: "complementary_color" },
  { task: "Build a triadic scheme of five colors around #3366cc for my website", tool: "color_palette" },
  { task: "Encode 'user:hunter2' the way HTTP basic auth headers need it", tool: "base64_encode" },
  { task: "What's the SHA-256 of the string 'password123'?", tool: "sha256_hash" },
  { task: "I need the md5 of 'toolsmith' to compare with a checksum file", tool: "md5_hash" },
  {
    task: "Verify this GitHub webhook: body '{\"a\":1}', secret 's3cr3t'. What signature should I expect?",
    tool: "hmac_signature",
  },
  { task: "What's inside this token? eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.abc", tool: "jwt_decode" },
  { task: "I need a strong random 20-character password with symbols", tool: "generate_password" },
  { task: "How good is 'Summer2024!' as a password? Could someone crack it quickly?", tool: "password_strength" },
  { task: "Turn this CSV into JSON: name,age\nAna,31\nBo,27", tool: "parse_csv" },
  { task: "I have a list of JSON objects and need a spreadsheet file I can open in Excel", tool: "json_to_csv" },
  { task: 'Is this well-formed JSON? {"a": 1, "b": [1,2,}', tool: "validate_json" },
  { task: "Get me all the authors from this document with $.books[*].author", tool: "json_path_query" },
  {
    task: "What's the hostname, port and query params of https://shop.example.com:8443/cart?item=42&ref=mail#top",
    tool: "parse_url",
  },
  {
    task: "Which browser and OS sent 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Safari/604.1'?",
    tool: "parse_user_agent",
  },
  { task: "Convert this docker-compose YAML into JSON", tool: "yaml_to_json" },
  {
    task: 'Pull the status codes and paths out of these nginx lines: 127.0.0.1 - - [10/Oct/2024:13:55:36 +0000] "GET /index.html HTTP/1.1" 200 2326',
    tool: "parse_access_log",
  },
  { task: "Is version 1.10.0 newer than 1.9.3?", tool: "semver_compare" },
  { task: "Is 'jane.doe@@example.com' a proper address I can send mail to?", tool: "validate_email" },
  { task: "Check that my bank account number DE89 3704 0044 0532 0130 00 is typed correctly", tool: "validate_iban" },
  { task: "Is 978-0-306-40615-7 a correct book number or did I mistype a digit?", tool: "validate_isbn" },
  { task: "Does 4539 1488 0343 6467 pass the card checksum, and which network is it?", tool: "luhn_card_check" },
  { task: "For 10.20.0.0/22, what's the broadcast address and how many hosts can I use?", tool: "subnet_calculator" },
  { task: "Is 172.16.5.4 inside 172.16.0.0/12?", tool: "ip_in_cidr" },
  { task: "How long will a 4 GB download take on a 50 Mbit connection?", tool: "transfer_time" },
  { task: "What normally listens on port 5432?", tool: "port_service_lookup" },
  { task: "What does a 418 response from a server mean?", tool: "http_status_meaning" },
  { task: "What are the MX records for gmail.com?", tool: "dns_lookup" },
  { task: "Is example.org down right now or is it just me?", tool: "check_website_up" },
  { task: "I'm 1.78 m and 82 kg, am I overweight?", tool: "bmi_calculator" },
  { task: "I ran 10 km in 52:30, how many minutes per mile was that?", tool: "running_pace" },
  { task: "My half marathon best is 1:45:00. What could I run a full marathon in?", tool: "race_time_predictor" },
  { task: "I squatted 100 kg for 6 reps; what's my estimated max for a single?", tool: "one_rep_max" },
  {
    task: "I need to be up at 6:30, when should I go to bed so I don't wake up groggy in the middle of a cycle?",
    tool: "sleep_cycle_times",
  },
  { task: "My last period started on 2 Jan 2025, when is the baby due?", tool: "pregnancy_due_date" },
  { task: "This recipe feeds 4 but I'm cooking for 10: 200 g flour, 3 eggs, 250 ml milk", tool: "scale_recipe" },
  { task: "How many grams is 2 cups of all-purpose flour?", tool: "cups_to_grams" },
  { task: "Recipe says gas mark 6, my oven is in Celsius", tool: "oven_temperature" },
  { task: "How long do I cook a 5.5 kg turkey?", tool: "roast_cooking_time" },
  { task: "I'm out of buttermilk, what can I use instead for 250 ml?", tool: "ingredient_substitute" },
  {
    task: "I'm making 6 Neapolitan pizzas tonight, 250 g balls at 65% hydration: how much flour, water, salt and yeast?",
    tool: "pizza_dough",
  },
  { task: "What's the molecular weight of caffeine, C8H10N4O2?", tool: "molar_mass" },
  { task: "How much of my 1 M stock do I need to make 500 ml at 0.2 M?", tool: "dilution_c1v1" },
  {
    task: "Carbon-14 has a half-life of 5730 years; how much of 10 g is left after 20,000 years?",
    tool: "radioactive_decay",
  },
  { task: "What resistance do brown, black, red, gold stripes mean?", tool: "resistor_color_code" },
  {
    task: "I have a 9V battery and a red LED (2 V, 20 mA). Which resistor do I put in front of it?",
    tool: "led_resistor",
  },
  { task: "A ball is thrown at 20 m/s at 45 degrees; how far away does it land?", tool: "projectile_motion" },
  { task: "Balance Al + O2 -> Al2O3", tool: "balance_chemical_equation" },
  { task: "Tell me the atomic mass and electron configuration of tungsten", tool: "periodic_table_lookup" },
  {
    task: "My space heater draws 2,000 W and runs 5 hours a day; at 0.30 per kWh what does that cost me a month?",
    tool: "electricity_cost",
  },
  { task: "Roll 4d6 for my D&D character's strength", tool: "roll_dice" },
  {
    task: "My hand is K♠ K♥ 7♦ 7♣ 2♠. What is that called in poker and does it beat three of a kind?",
    tool: "poker_hand_rank",
  },
  {
    task: "Can you fill in this puzzle grid? 530070000600195000098000060800060003400803001700020006060000280000419005000080079",
    tool: "sudoku_solver",
  },
  { task: "I'm rated 1500 and beat someone rated 1700; what's my new chess rating?", tool: "elo_rating" },
  {
    task: "Split these 10 kids into 2 fair sides for a football match: Ana, Ben, Cy, Dee, Eli, Fay, Gus, Hal, Ivy, Jo",
    tool: "random_teams",
  },
  { task: "What words can I make from the letters A E R S T L?", tool: "anagram_solver" },
  { task: "Remove the customers that appear twice with the same email from this list", tool: "deduplicate_records" },
  {
    task: "My spreadsheet has dates like 03/04/2024, 4 March 2024 and 2024.03.04 all mixed up; make them consistent",
    tool: "normalize_dates_column",
  },
  {
    task: 'Total sales per region from these rows: [{"region":"EU","amount":10},{"region":"US","amount":7},{"region":"EU","amount":3}]',
    tool: "group_and_aggregate",
  },
  {
    task: "Match these misspelled company names to our master list: 'Mircosoft', 'Gogle', 'Amazn'",
    tool: "fuzzy_match_names",
  },
  { task: "Drop the crazy values from these sensor readings: 21, 22, 19, 250, 20, -40, 23", tool: "remove_outliers" },
  { task: "Clean up '$1,234.50', '€ 99' and '1.234,50 €' into plain numbers", tool: "clean_currency_strings" },
  { task: "Combine the orders list with the customers list on customer_id", tool: "join_records" },
  { task: "Will it rain in Manchester this weekend?", tool: "weather_forecast" },
  { task: "What's bitcoin trading at in euros?", tool: "crypto_price" },
  { task: "Where exactly is 10 Downing Street, London on a map (lat/long)?", tool: "geocode_address" },
  { task: "How many stars does vercel/next.js have on GitHub?", tool: "github_repo_info" },
  { task: "Give me a quick intro to the Treaty of Westphalia from the encyclopedia", tool: "wikipedia_summary" },
  { task: "What's the newest version of the zod package on npm?", tool: "npm_package_info" },
  { task: "What are the latest posts on https://blog.example.com/feed.xml?", tool: "read_rss_feed" },
  { task: "Which country is 8.8.8.8 located in?", tool: "ip_geolocation" },
  { task: "What's the capital and population of Kazakhstan?", tool: "country_info" },
  {
    task: "What's my grade average with an A in Calculus (4 credits), B+ in History (3) and C in Chemistry (4)?",
    tool: "gpa_calculator",
  },
  {
    task: "I have 82% now and the exam at the end is worth 30%. What do I need on it to end with 85?",
    tool: "grade_needed_final",
  },
  { task: "How much paint do I need for a 4 x 3.5 m bedroom with 2.5 m ceilings, two coats?", tool: "paint_estimate" },
  {
    task: "Petrol for driving Lyon to Barcelona, 640 km: my car uses 6.5 l/100km and diesel is 1.72 a litre",
    tool: "trip_fuel_cost",
  },
  {
    task: "I want to resize a 1920×1080 picture to 800 pixels wide; what height keeps it from stretching?",
    tool: "aspect_ratio_resize",
  },
  { task: "It's -5 °C with a 30 km/h wind. How cold does it actually feel?", tool: "wind_chill" },
  { task: "Draw names for our office Secret Santa: Ana, Ben, Cleo, Dev, Eli", tool: "random_gift_exchange" },
  { task: "My beagle is 7, how old is that for a person?", tool: "dog_age_human_years" },
  { task: "How long will it take me to get through a 2,400-word article?", tool: "reading_time" },
  { task: "Flip a coin for me", tool: "coin_flip" },
  {
    task: "Look at this text and find the terms it uses most, ignoring filler like 'the' and 'and'",
    tool: "extract_keywords",
  },
  {
    task: "Is this review positive or negative: 'The battery died after two days and support never answered.'",
    tool: "sentiment_score",
  },
  { task: "Hide the card numbers and emails in this support ticket before I share it", tool: "mask_sensitive_text" },
  { task: "change my_variable_name into myVariableName", tool: "to_camel_case" },
];

const VERBS = [
  "summarize",
  "rank",
  "estimate",
  "forecast",
  "validate",
  "merge",
  "schedule",
  "allocate",
  "reconcile",
  "classify",
  "score",
  "audit",
  "route",
  "archive",
  "index",
  "tag",
  "cluster",
  "optimize",
  "simulate",
  "track",
  "predict",
  "aggregate",
  "compare",
  "export",
  "import",
  "plan",
  "monitor",
  "inspect",
  "label",
  "resolve",
  "assign",
  "balance",
  "batch",
  "calibrate",
  "compress",
  "detect",
  "enrich",
  "filter",
  "rotate",
  "snapshot",
  "throttle",
  "translate",
  "match",
  "prioritize",
  "quote",
  "reserve",
  "review",
  "sync",
  "trace",
  "weigh",
  "draft",
  "notify",
  "split",
  "tally",
];
const QUALIFIERS = [
  "daily",
  "weekly",
  "monthly",
  "regional",
  "pending",
  "overdue",
  "priority",
  "seasonal",
  "historical",
  "live",
  "draft",
  "archived",
  "duplicate",
  "missing",
  "expired",
  "shared",
  "bulk",
  "quarterly",
  "nightly",
  "incoming",
  "outgoing",
  "flagged",
  "stale",
  "recent",
  "top",
  "open",
  "closed",
  "weighted",
  "raw",
  "urgent",
  "annual",
  "local",
  "remote",
];
const SUBJECTS = [
  "invoice",
  "shipment",
  "warehouse_bin",
  "sensor_reading",
  "playlist",
  "support_ticket",
  "inventory",
  "satellite_pass",
  "reservoir_level",
  "crop_yield",
  "parking_slot",
  "hotel_booking",
  "fleet_vehicle",
  "patient_visit",
  "classroom_seat",
  "library_loan",
  "server_log",
  "build_artifact",
  "pull_request",
  "sprint_story",
  "ad_campaign",
  "newsletter",
  "podcast_episode",
  "recipe_card",
  "gym_membership",
  "train_timetable",
  "flight_segment",
  "cargo_manifest",
  "tax_form",
  "payroll_run",
  "expense_report",
  "sales_lead",
  "customer_churn",
  "survey_response",
  "product_review",
  "menu_item",
  "wine_pairing",
  "garden_bed",
  "beehive",
  "aquarium",
  "solar_array",
  "wind_turbine",
  "battery_cycle",
  "water_meter",
  "traffic_signal",
  "bike_share",
  "ride_request",
  "delivery_route",
  "drone_flight",
  "weather_station",
  "seismic_event",
  "tide_table",
  "star_catalog",
  "telescope_slot",
  "lab_sample",
  "reagent_stock",
  "clinical_trial",
  "vaccine_batch",
  "blood_donation",
  "pet_adoption",
  "volunteer_shift",
  "donation",
  "grant_application",
  "court_filing",
  "contract_clause",
  "patent_claim",
  "trademark",
  "photo_album",
  "video_clip",
  "subtitle",
  "font_pair",
  "ui_component",
  "api_quota",
  "feature_flag",
  "dns_zone",
  "certificate",
  "backup_job",
  "cache_entry",
  "queue_message",
  "cron_job",
  "container_image",
  "kubernetes_pod",
  "database_index",
  "query_plan",
  "schema_migration",
  "git_branch",
  "release_note",
  "changelog",
  "bug_report",
  "test_suite",
  "code_review",
  "software_license",
  "dependency",
  "chat_message",
  "email_thread",
  "calendar_slot",
  "meeting_room",
  "desk_booking",
  "office_supply",
  "purchase_order",
  "vendor",
  "supplier_quote",
  "freight_rate",
  "customs_declaration",
  "warranty_claim",
  "return_request",
  "loyalty_point",
  "gift_card",
  "coupon",
  "subscription",
  "tenant",
  "lease",
  "property_listing",
  "energy_bill",
  "farm_plot",
  "livestock",
  "fishing_quota",
  "forest_stand",
  "wildfire_risk",
  "flood_gauge",
  "snow_depth",
  "ski_lift",
  "stadium_seat",
  "concert_ticket",
  "tournament_bracket",
  "league_table",
  "player_transfer",
  "race_lap",
];
const OUTCOMES = [
  "and return a short report",
  "grouped by owner",
  "sorted by date, newest first",
  "with a confidence score for each",
  "for the given period",
  "per region and per team",
  "as rows ready for a spreadsheet",
  "with totals and averages",
  "and flag the ones that need attention",
  "against the thresholds supplied",
  "and list what changed since the last run",
  "with a status of ok, warning or critical",
];
const PARAMETERS = [
  "records:array:the items to process",
  "period?:string:e.g. 2024-Q3",
  "region?:string",
  "limit?:integer:how many to return",
  "threshold?:number",
  "owner?:string",
  "start_date?:string",
  "end_date?:string",
  "format?:string:json or csv",
  "id:string",
  "include_archived?:boolean",
  "currency?:string",
];

/**
 * `count` plausible, distinct extra tools to pad a library (to 500 or 5,000) for latency: operations on everyday
 * business and operations records, with varied vocabulary. Deterministic, and never a corpus tool's name.
 */
export function syntheticTools(count: number): CorpusTool[] {
  let seed = 20261126;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)];
  const taken = new Set(TOOL_CORPUS.map((tool) => tool.name));
  const tools: CorpusTool[] = [];
  while (tools.length < count) {
    const [verb, qualifier, subject] = [pick(VERBS), pick(QUALIFIERS), pick(SUBJECTS)];
    const name = `${verb}_${qualifier}_${subject}`;
    if (taken.has(name)) continue;
    taken.add(name);
    const noun = subject.replace(/_/g, " ");
    const parameters = new Set<string>([PARAMETERS[0]]);
    for (let extra = Math.floor(random() * 4); extra > 0; extra--) parameters.add(pick(PARAMETERS));
    tools.push(
      tool(
        name,
        `${verb[0].toUpperCase()}${verb.slice(1)} ${qualifier} ${noun} records ${pick(OUTCOMES)}.`,
        [...parameters].join("|"),
      ),
    );
  }
  return tools;
}

export interface RecallFigures {
  tasks: number;
  /** Share of the tasks whose right tool came first. */
  recallAt1: number;
  /** Share of the tasks whose right tool was among the first 8. */
  recallAt8: number;
  misses: { task: string; tool: string; found: string[] }[];
}

/** Recall of a search over RETRIEVAL_TASKS: `search` gives the names of the best 8 tools for a task, best first. */
export async function measureRecall(search: (task: string) => Promise<string[]>): Promise<RecallFigures> {
  let first = 0;
  const misses: RecallFigures["misses"] = [];
  for (const { task, tool } of RETRIEVAL_TASKS) {
    const found = (await search(task)).slice(0, 8);
    if (found[0] === tool) first++;
    if (!found.includes(tool)) misses.push({ task, tool, found });
  }
  const tasks = RETRIEVAL_TASKS.length;
  return { tasks, recallAt1: first / tasks, recallAt8: (tasks - misses.length) / tasks, misses };
}
