# bash completion for isopredict(1): commands, each command's options, the
# values of enumerated options, files and directories elsewhere.

_isopredict_opts()
{
    case $1 in
    predict) echo "--model --boundary --encoding --format --out --json --dot --html
        --timeout --max-memory --max-predictions --search --window
        --staleness --changes --jobs --weak-isolation --shard --key-family --quiet
        --help" ;;
    triage) echo "--model --boundary --encoding --format --out --json --html --html-classes
        --classes --timeout --max-memory --search --window --staleness --changes --jobs
        --weak-isolation --shard --key-family --merge --independent-windows
        --quiet --help" ;;
    check) echo "--level --format --json --timeout --max-cycles --jobs --html
        --general --help" ;;
    convert) echo "--from --to --lenient --help" ;;
    stats) echo "--format --json --lenient --help" ;;
    dot) echo "--format --out --lenient --help" ;;
    validate) echo "--app --out --json --sessions --txns --seed --timeout
        --help" ;;
    report) echo "--out --quiet --help" ;;
    verify) echo "--observed --format --lenient --json --timeout --help" ;;
    esac
}

_isopredict()
{
    local cur prev cmd i
    COMPREPLY=()
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD - 1]}
    cmd=predict
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        predict | triage | check | convert | stats | dot | validate | verify | report)
            cmd=${COMP_WORDS[i]}
            break ;;
        esac
    done
    local formats="auto json isopredict-text plume awdit-test dbcop cobra elle"
    case $prev in
    --model) COMPREPLY=($(compgen -W "causal rc ra si" -- "$cur")); return ;;
    --level) COMPREPLY=($(compgen -W "rc ra causal si ser" -- "$cur")); return ;;
    --boundary) COMPREPLY=($(compgen -W "strict relaxed" -- "$cur")); return ;;
    --encoding) COMPREPLY=($(compgen -W "approx exact approx-rank" -- "$cur")); return ;;
    --search) COMPREPLY=($(compgen -W "auto exhaustive bounded" -- "$cur")); return ;;
    --weak-isolation) COMPREPLY=($(compgen -W "auto eager lazy" -- "$cur")); return ;;
    --format | --from) COMPREPLY=($(compgen -W "$formats" -- "$cur")); return ;;
    --to) COMPREPLY=($(compgen -W "json dot isopredict-text plume awdit-test dbcop cobra elle" -- "$cur")); return ;;
    --html | --observed) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    --out)
        if [ "$cmd" = predict ] || [ "$cmd" = triage ]; then
            COMPREPLY=($(compgen -d -- "$cur"))
        else
            COMPREPLY=($(compgen -f -- "$cur"))
        fi
        return ;;
    --app) COMPREPLY=($(compgen -c -- "$cur") $(compgen -f -- "$cur")); return ;;
    --timeout | --max-memory | --max-predictions | --window | --staleness | --changes | \
    --jobs | --shard | --max-cycles | --sessions | --txns | --seed | \
    --key-family)
        return ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$(_isopredict_opts "$cmd") --version" -- "$cur"))
    elif [ "$COMP_CWORD" = 1 ]; then
        COMPREPLY=($(compgen -W "predict triage check convert stats dot validate verify report" -- "$cur")
                   $(compgen -f -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _isopredict isopredict
