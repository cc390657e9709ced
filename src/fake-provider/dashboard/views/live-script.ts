/**
 * The only script of the journal page: the live stream (EventSource, which resends Last-Event-ID on reconnect), pause /
 * resume, auto-scroll, and copy-as-curl. Rows arrive rendered and escaped by the server; group names are set as text.
 */
export const LIVE_SCRIPT = `
(function(){
  var box=document.getElementById('entries');
  document.addEventListener('click',function(ev){var b=ev.target.closest&&ev.target.closest('.copy-curl');if(!b)return;
    var t=b.getAttribute('data-curl');(navigator.clipboard?navigator.clipboard.writeText(t):Promise.reject()).then(function(){b.textContent='copied';},function(){window.prompt('curl',t);});});
  document.addEventListener('toggle',function(ev){var d=ev.target;if(!d.open||!d.classList||!d.classList.contains('row'))return;
    var m=d.querySelector('.more[data-src]');if(!m)return;var src=m.getAttribute('data-src');m.removeAttribute('data-src');
    fetch(src).then(function(r){return r.text();}).then(function(h){m.innerHTML=h;},function(){m.setAttribute('data-src',src);});},true);
  if(!box||box.getAttribute('data-live')!=='1')return;
  var state=document.getElementById('live-state'),btn=document.getElementById('pause'),auto=document.getElementById('autoscroll');
  var last=Number(box.getAttribute('data-since')),group=box.getAttribute('data-group'),es=null,paused=false;
  function show(s,on){state.textContent=s;state.className=on?'on':'';}
  function add(ev){var d=JSON.parse(ev.data);last=Math.max(last,Number(ev.lastEventId));
    var tpl=document.createElement('template');tpl.innerHTML=d.html;var row=tpl.content.firstElementChild;var target=box;
    if(group!=='none'){target=null;var gs=box.querySelectorAll('details.group');for(var i=0;i<gs.length;i++)if(gs[i].getAttribute('data-group')===d.group)target=gs[i];
      if(!target){target=document.createElement('details');target.className='group';target.open=true;target.setAttribute('data-group',d.group);
        var s=document.createElement('summary');var b=document.createElement('b');b.className='mono';b.textContent=d.group;s.appendChild(b);target.appendChild(s);box.appendChild(target);}}
    target.appendChild(row);var e=document.getElementById('empty');if(e)e.remove();
    show('live · seq '+last,true);if(auto.checked)row.scrollIntoView({block:'end'});}
  function connect(){es=new EventSource(box.getAttribute('data-stream')+'&since='+last);es.addEventListener('entry',add);
    es.onopen=function(){show('live · seq '+last,true);};es.onerror=function(){show('reconnecting…',false);};}
  btn.addEventListener('click',function(){paused=!paused;if(paused){es&&es.close();es=null;btn.textContent='resume';show('paused at seq '+last,false);}
    else{btn.textContent='pause';connect();}});
  connect();
})();
`;
